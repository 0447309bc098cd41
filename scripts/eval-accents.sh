#!/usr/bin/env bash
# Reproduces the accent-folding runs of docs/EVALUATION.md ("Accents"):
# Debian's fortunes in German, Spanish, Czech, Polish and Brazilian
# Portuguese, and Russian, copies of them with their accents taken off (in
# Russian: ё written е), judged with and without Pipeline.FoldAccents.
#
#   scripts/eval-accents.sh [OUTDIR]
#   LANGS="ru" scripts/eval-accents.sh [OUTDIR]   # some of the languages
#
# The fortunes come from Debian's apt (apt-get download, no install, no
# root needed once the package lists are there); they are unpacked into
# OUTDIR (default /tmp/neardup-accents), never into the repository. Only
# the quotes that hold a letter of Latin-1 or Latin Extended-A with a
# byte over 0x7f (é, ü, ñ, ř, ł, ...), in Russian ё or Ё, are kept, so
# that every copy differs from its original. The seed is fixed, so a rerun gives the same numbers.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=${1:-/tmp/neardup-accents}
mkdir -p "$out/deb"
bin=${BIN:-$out/neardup}
[[ -n ${BIN:-} ]] || (cd "$root" && go build -o "$bin" ./cmd/neardup)

declare -A packages=([de]=fortunes-de [es]=fortunes-es [cs]=fortunes-cs [pl]=fortunes-pl [pt]=fortunes-br [ru]=fortunes-ru)
langs=${LANGS:-de es cs pl pt ru}
for lang in $langs; do
	pkg=${packages[$lang]}
	if ! ls "$out/deb/$pkg"_*.deb >/dev/null 2>&1; then
		(cd "$out/deb" && apt-get download "$pkg" >/dev/null)
	fi
	rm -rf "$out/$lang"
	dpkg-deb -x "$out/deb/$pkg"_*.deb "$out/$lang"
	# Every fortune file that is UTF-8 (file.u8 is a link to file, or
	# empty) but the offensive ones, one quote a record, the marked ones
	# kept.
	marked='[\303-\305][\200-\277]'
	[[ $lang == ru ]] && marked='\321\221|\320\201'
	find "$out/$lang/usr/share/games/fortunes" -type f -size +0 ! -name '*.dat' ! -path '*/off/*' | sort | while read -r f; do
		iconv -f UTF-8 -t UTF-8 "$f" >/dev/null 2>&1 || continue
		cat "$f"
		printf '\n%%\n'
	done | LC_ALL=C awk -v marked="$marked" 'BEGIN { RS = "\n%\n"; ORS = "\n%\n" } $0 ~ marked' >"$out/$lang.txt"
done

for lang in $langs; do
	for pipe in "" FoldAccents=true; do
		name=$lang${pipe:+-fold}
		echo "== $name: copies without accents, policy (eval edits)"
		"$bin" eval edits --input "$out/$lang.txt" --format fortunes --kinds accents --rates 0.3,1 \
			--profiles "" --measures "" --sample 2000 --seed 1 --policy-pipeline "$pipe" --out "$out/edits-$name" |
			grep '^| policy' | head -1
		echo "== $name: the usual edits, policy (eval edits)"
		"$bin" eval edits --input "$out/$lang.txt" --format fortunes \
			--profiles "" --measures "" --sample 1000 --seed 1 --policy-pipeline "$pipe" --out "$out/usual-$name" |
			grep '^| policy' | head -1
		echo "== $name: planted copies without accents, engine dedup (eval corpus)"
		"$bin" eval corpus --input "$out/$lang.txt" --format fortunes --kinds accents --rates 1 \
			--profiles "" --sample 3000 --seed 1 --policy-pipeline "$pipe" |
			grep 'dedup engine'
	done
done
