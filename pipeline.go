package neardup

import "errors"

// Pipeline configures neardup's own "default" profile: how text is
// normalized, split into features and weighted before SimHash.
type Pipeline struct{}

// DefaultPipeline returns the settings of the "default" profile.
func DefaultPipeline() Pipeline { return Pipeline{} }

// NewPipeline returns a SimHash Fingerprinter of the given width (64 or 128)
// that runs the pipeline p.
func NewPipeline(p Pipeline, bits int) (Fingerprinter, error) {
	return nil, errors.New("neardup: pipeline not built yet")
}
