#!/usr/bin/env bash
# Reproduces every run in docs/EVALUATION.md from the development corpora.
#
#   scripts/eval.sh [-o OUTDIR] [SECTION...]
#
# SECTION is any of: pairs edits variants grid corpus (default: all).
# ONLY=regex limits the runs to those whose name matches.
# Corpora are read from ../shared/corpora relative to the repository root
# (override with CORPORA=...); they are never copied into the repository.
# Each run writes OUTDIR/<run>/{report.json,summary.md}, edits and pairs
# runs also their plots (*.png); OUTDIR defaults to /tmp/neardup-eval. The
# seed is fixed (SEED=1) and samples are drawn with it, so a rerun gives the
# same numbers.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
corpora=${CORPORA:-$root/../shared/corpora}
out=/tmp/neardup-eval
seed=${SEED:-1}
if [[ ${1:-} == -o ]]; then
	out=$2
	shift 2
fi
sections=("$@")
[[ ${#sections[@]} -gt 0 ]] || sections=(pairs edits variants grid corpus)
mkdir -p "$out"
# BIN=path uses a binary already built instead of building one.
bin=${BIN:-$out/neardup}
[[ -n ${BIN:-} ]] || (cd "$root" && go build -o "$bin" ./cmd/neardup)

want() {
	local s
	for s in "${sections[@]}"; do [[ $s == "$1" ]] && return 0; done
	return 1
}

# run NAME ARGS...: one eval run, its Markdown summary on stdout and in
# OUTDIR/NAME/summary.md.
run() {
	local name=$1
	shift
	if [[ -n ${ONLY:-} && ! $name =~ $ONLY ]]; then return 0; fi
	echo "== $name: neardup eval $*" >&2
	local t0=$SECONDS
	"$bin" eval "$@" --seed "$seed" --name "$name" --out "$out/$name" >/dev/null
	echo "   $((SECONDS - t0)) s" >&2
}

en=$corpora/en
zh=$corpora/zh

if want pairs; then
	# The hard paraphrase tier, and Clough's plagiarised answers.
	run mrpc pairs --input "$en/mrpc_train.tsv" --a-col 3 --b-col 4 --label-col 0
	run stsb pairs --input "$en/stsbenchmark.tsv.gz" --label-col score --label-threshold 4
	run bq pairs --input "$zh/bq_dev.csv"
	run stsb-zh pairs --input "$zh/sts-b/STS-B.train.data" --a-col 0 --b-col 1 --label-col 2 --label-threshold 4
	run clough pairs --input "$en/clough"
fi

# Controlled edits at rates up to 10% of words (the aim), every edit kind.
# Mails are cut to 4,000 characters: a few run to 300,000, where exact edit
# distance alone would take minutes.
rates=0.01,0.03,0.05,0.1
if want edits; then
	run brown edits --input "$en/brown" --sample 30 --rates $rates
	run spam edits --input "$en/spamassassin.jsonl" --sample 200 --passage 4000 --rates $rates
	run fortunes edits --input "$en/fortunes" --sample 500 --rates $rates
	run guwen edits --input "$zh/guwenguanzhi.jsonl" --rates $rates
	run fortunes-zh edits --input "$zh/fortunes-zh" --sample 500 --rates $rates
fi

# Sweep the fields of neardup.Pipeline (default profile only).
# Every field that differs from the pipeline measured is given, so that the
# rows stay put when DefaultPipeline changes (old-w3-tf is the default these
# sweeps were first made against: words, CJK bigram, Shingle 3, tf; CJK does
# not touch the English corpora).
variants=(
	--variant old-w3-tf:CJK=bigram,Shingle=3,Weighting=tf
	--variant w1:Shingle=1,Weighting=tf --variant w2:Shingle=2,Weighting=tf --variant w4:Shingle=4,Weighting=tf --variant w5:Shingle=5,Weighting=tf
	--variant c2:Units=chars,Shingle=2,Weighting=tf --variant c3:Units=chars,Shingle=3,Weighting=tf
	--variant c4:Units=chars,Shingle=4,Weighting=tf --variant c5:Units=chars,Shingle=5,Weighting=tf
	--variant c3-logtf:Units=chars,Shingle=3,Weighting=logtf --variant c4-logtf:Units=chars,Shingle=4,Weighting=logtf
	--variant c5-logtf:Units=chars,Shingle=5,Weighting=logtf --variant c3-html:Units=chars,Shingle=3,Weighting=tf,HTML=true
	--variant w2-logtf:Shingle=2,Weighting=logtf
	--variant logtf:Shingle=3,Weighting=logtf --variant binary:Shingle=3,Weighting=binary
	--variant stop:Shingle=3,Weighting=tf,StopWords=english --variant top64:Shingle=3,Weighting=tf,TopN=64
	--variant html:Shingle=3,Weighting=tf,HTML=true
)
zhvariants=(--variant old-w3-tf:CJK=bigram,Shingle=3,Weighting=tf
	--variant uni:CJK=unigram,Shingle=3,Weighting=tf --variant uni-w2:CJK=unigram,Shingle=2,Weighting=tf
	--variant bi-w2:CJK=bigram,Shingle=2,Weighting=tf --variant seg:CJK=segment,Shingle=3,Weighting=tf
	--variant seg-w2:CJK=segment,Shingle=2,Weighting=tf --variant uni-w2-logtf:CJK=unigram,Shingle=2,Weighting=logtf
	--variant c2:Units=chars,Shingle=2,Weighting=tf --variant c3:Units=chars,Shingle=3,Weighting=tf
	--variant c3-logtf:Units=chars,Shingle=3,Weighting=logtf
	--variant c4-logtf:Units=chars,Shingle=4,Weighting=logtf --variant c5-logtf:Units=chars,Shingle=5,Weighting=logtf)
if want variants; then
	common=(--profiles default --measures "" --policy=false)
	run var-fortunes edits --input "$en/fortunes" --sample 500 --rates $rates "${common[@]}" "${variants[@]}"
	run var-brown edits --input "$en/brown" --sample 30 --rates $rates "${common[@]}" "${variants[@]}"
	run var-mrpc pairs --input "$en/mrpc_train.tsv" --a-col 3 --b-col 4 --label-col 0 "${common[@]}" "${variants[@]}"
	run var-fortunes-zh edits --input "$zh/fortunes-zh" --sample 500 --rates $rates "${common[@]}" "${zhvariants[@]}"
	run var-guwen edits --input "$zh/guwenguanzhi.jsonl" --rates $rates "${common[@]}" "${zhvariants[@]}"
	run var-bq pairs --input "$zh/bq_dev.csv" "${common[@]}" "${zhvariants[@]}"
	# The default pipeline (single tokens, log-tf since a8c346d; CJK unigram
	# since 775f9e9) against the candidates, the former default with CJK
	# bigrams (bi) and the default with HTML=true, every field given so that
	# the rows do not move with it.
	cands=(--variant old-w3-tf:CJK=bigram,Shingle=3,Weighting=tf --variant uni:CJK=unigram
		--variant bi:CJK=bigram,Shingle=1,Weighting=logtf --variant def-html:CJK=unigram,Shingle=1,Weighting=logtf,HTML=true
		--variant B:CJK=unigram,Shingle=2,Weighting=tf --variant B-logtf:CJK=unigram,Shingle=2
		--variant A:Units=chars,Shingle=3,Weighting=tf --variant A-logtf:Units=chars,Shingle=3)
	run cand-brown edits --input "$en/brown" --sample 30 --rates $rates "${common[@]}" "${cands[@]}"
	run cand-fortunes edits --input "$en/fortunes" --sample 500 --rates $rates "${common[@]}" "${cands[@]}"
	run cand-fortunes-zh edits --input "$zh/fortunes-zh" --sample 500 --rates $rates "${common[@]}" "${cands[@]}"
	run cand-guwen edits --input "$zh/guwenguanzhi.jsonl" --rates $rates "${common[@]}" "${cands[@]}"
	# 128 bits: distances double; does the separation improve?
	for bits in 64 128; do
		run var$bits-brown edits --input "$en/brown" --sample 30 --rates $rates --bits $bits --profiles default --measures "" --policy=false --variant old-w3-tf:CJK=bigram,Shingle=3,Weighting=tf \
			--variant B:CJK=unigram,Shingle=2,Weighting=tf --variant A:Units=chars,Shingle=3,Weighting=tf
	done
fi

# One rule per candidate distance and measure: the best similarity cut of
# each, by length, chooses the policy.
if want grid; then
	common=(--profiles "" --measures "" --policy-grid --grid-k 3,4,6,8,10,12,16)
	en3=(--policy-pipeline Units=chars,Shingle=3,Weighting=tf)
	zh2=(--policy-pipeline CJK=unigram,Shingle=2,Weighting=tf)
	run grid-fortunes edits --input "$en/fortunes" --sample 500 --rates $rates "${common[@]}" "${en3[@]}"
	run grid-brown edits --input "$en/brown" --sample 30 --rates $rates "${common[@]}" "${en3[@]}"
	run grid-fortunes-zh edits --input "$zh/fortunes-zh" --sample 500 --rates $rates "${common[@]}" "${zh2[@]}"
	run grid-guwen edits --input "$zh/guwenguanzhi.jsonl" --rates $rates "${common[@]}" "${zh2[@]}"
	run grid-mrpc pairs --input "$en/mrpc_train.tsv" --a-col 3 --b-col 4 --label-col 0 "${common[@]}" "${en3[@]}"
	run grid-bq pairs --input "$zh/bq_dev.csv" "${common[@]}" "${zh2[@]}"
	# The default pipeline as it is (single tokens, log-tf).
	run grid-fortunes-cur edits --input "$en/fortunes" --sample 500 --rates $rates "${common[@]}"
	run grid-fortunes-zh-cur edits --input "$zh/fortunes-zh" --sample 500 --rates $rates "${common[@]}"
	run grid-brown-cur edits --input "$en/brown" --sample 30 --rates $rates "${common[@]}"
	# The recommended pipeline: the default with CJK=unigram (the default
	# since 775f9e9).
	uni=(--policy-pipeline CJK=unigram)
	run grid-fortunes-zh-uni edits --input "$zh/fortunes-zh" --sample 500 --rates $rates "${common[@]}" "${uni[@]}"
	run grid-guwen-uni edits --input "$zh/guwenguanzhi.jsonl" --rates $rates "${common[@]}" "${uni[@]}"
	run grid-mrpc-cur pairs --input "$en/mrpc_train.tsv" --a-col 3 --b-col 4 --label-col 0 "${common[@]}"
	run grid-bq-uni pairs --input "$zh/bq_dev.csv" "${common[@]}" "${uni[@]}"
	# Words, CJK unigram, Shingle 2, tf (candidate B) on English.
	w2=(--policy-pipeline CJK=unigram,Shingle=2,Weighting=tf)
	run grid-fortunes-w2 edits --input "$en/fortunes" --sample 500 --rates $rates "${common[@]}" "${w2[@]}"
	run grid-brown-w2 edits --input "$en/brown" --sample 30 --rates $rates "${common[@]}" "${w2[@]}"
	# The earlier defaults: pipeline words, CJK bigram, Shingle 3, tf;
	# policy short k = 8, long k = 3 (with today's measures).
	old=(--profiles "" --measures "" --policy=false --policy-pipeline CJK=bigram,Shingle=3,Weighting=tf
		--policy-variant old:short-k=8,long-k=3)
	run grid-fortunes-old edits --input "$en/fortunes" --sample 500 --rates $rates "${old[@]}"
	run grid-fortunes-zh-old edits --input "$zh/fortunes-zh" --sample 500 --rates $rates "${old[@]}"
	run grid-brown-old edits --input "$en/brown" --sample 30 --rates $rates "${old[@]}"
	run grid-guwen-old edits --input "$zh/guwenguanzhi.jsonl" --rates $rates "${old[@]}"
fi

# Whole corpora with natural duplicates and planted copies.
if want corpus; then
	# Comparing all pairs is quadratic: samples keep each run to minutes.
	run corpus-spam corpus --input "$en/spamassassin.jsonl" --sample 2000
	run corpus-fortunes corpus --input "$en/fortunes" --sample 4000
	run corpus-fortunes-zh corpus --input "$zh/fortunes-zh" --sample 3000
	# The recommended pipeline (engine, with it) and policy (policy[rec]).
	rec=(--profiles "" --policy-pipeline CJK=unigram --policy-variant rec:short-k=12,long-k=12
		--policy-variant rec-j7:short-k=12,long-k=12,long-min=0.7)
	run corpus-fortunes-rec corpus --input "$en/fortunes" --sample 4000 "${rec[@]}"
	run corpus-fortunes-zh-rec corpus --input "$zh/fortunes-zh" --sample 3000 "${rec[@]}"
	run corpus-spam-rec corpus --input "$en/spamassassin.jsonl" --sample 2000 "${rec[@]}"
	# The earlier defaults: fingerprint-only dedup at k = 3 (default[old-w3-tf])
	# and the policy of that time (policy[old]), with today's measures.
	old=(--profiles default --variant old-w3-tf:CJK=bigram,Shingle=3,Weighting=tf --engine=false --policy=false
		--policy-pipeline CJK=bigram,Shingle=3,Weighting=tf --policy-variant old:short-k=8,long-k=3)
	run corpus-spam-old corpus --input "$en/spamassassin.jsonl" --sample 2000 "${old[@]}"
	run corpus-fortunes-old corpus --input "$en/fortunes" --sample 4000 "${old[@]}"
	run corpus-fortunes-zh-old corpus --input "$zh/fortunes-zh" --sample 3000 "${old[@]}"
fi
echo "reports in $out" >&2
