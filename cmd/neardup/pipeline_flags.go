package main

import (
	"os"

	"github.com/neardup/neardup"
	"github.com/neardup/neardup/weight"
	"github.com/spf13/pflag"
)

// pipelineFlags change the default profile's pipeline: --html and
// --main-text for crawled pages, --fold-accents for texts that may have
// lost their accents, --idf for tf-idf weights, --pipeline for any other
// field.
type pipelineFlags struct {
	html bool
	main bool
	fold bool
	spec string
	idf  string
}

// addFlags registers the flags on fs.
func (pf *pipelineFlags) addFlags(fs *pflag.FlagSet) {
	fs.BoolVar(&pf.html, "html", false, "texts are HTML: fingerprint and compare what a browser shows (tags, scripts and styles dropped, entities decoded); default profile only")
	fs.BoolVar(&pf.main, "main-text", false, "texts are HTML pages, read as --html reads them but without their furniture: the contents of nav, header, footer and aside elements (menus, banners, sidebars); default profile only")
	fs.BoolVar(&pf.fold, "fold-accents", false, "take the accents off Latin and Greek letters, and write Cyrillic ё as е without stress marks, before fingerprinting and comparing, so that \"café\" and \"cafe\" are one word, and \"ёлка\" and \"елка\" (not for Vietnamese); default profile only")
	fs.StringVar(&pf.idf, "idf", "", "weigh features by tf-idf with the IDF table FILE (from neardup idf build, with the same pipeline); default profile only")
	fs.StringVar(&pf.spec, "pipeline", "", "other changes to the default profile's pipeline, as Field=value,... (fields of neardup.Pipeline: Units=chars, CJK=bigram|segment, Shingle=N, Weighting=tf|binary, TopN=N, StopWords=english|chinese)")
}

// set reports whether any of the flags was given.
func (pf *pipelineFlags) set() bool {
	return pf.html || pf.main || pf.fold || pf.idf != "" || pf.spec != ""
}

// pipeline returns the pipeline the flags give, nil when none was given
// (the profile's own). They change the default profile only: profile must
// be it.
func (pf *pipelineFlags) pipeline(profile string) (*neardup.Pipeline, error) {
	if !pf.set() {
		return nil, nil
	}
	if profile != "" && profile != "default" {
		return nil, usagef("--html, --main-text, --fold-accents, --idf and --pipeline change the default profile's pipeline; profile %q is fixed", profile)
	}
	p := neardup.DefaultPipeline()
	if err := setFields(&p, pf.spec); err != nil {
		return nil, usagef("--pipeline %q: %v", pf.spec, err)
	}
	if pf.html {
		p.HTML = true
	}
	if pf.main {
		p.MainText = true
	}
	if pf.fold {
		p.FoldAccents = true
	}
	if pf.idf != "" {
		f, err := os.Open(pf.idf)
		if err != nil {
			return nil, usagef("--idf: %v", err)
		}
		defer f.Close()
		t, err := weight.ReadIDF(f)
		if err != nil {
			return nil, usagef("--idf %s: %v", pf.idf, err)
		}
		p.IDF, p.Weighting = t, weight.TFIDF
	}
	if _, err := neardup.NewPipeline(p, 64); err != nil {
		return nil, usagef("--pipeline %q: %v", pf.spec, unprefixed{err})
	}
	return &p, nil
}
