// Package analysis turns raw text into the tokens that neardup fingerprints:
// a normalizer (NFKC, case and width folding, control characters dropped,
// whitespace folded, optional HTML to text) and tokenizers (UAX #29 words,
// CJK characters, optional Chinese word segmentation with gse).
//
// The pieces are small one-method interfaces (CharFilter, Tokenizer,
// TokenFilter) chained by the plain Analyzer struct. The common case needs
// only two calls, and neither allocates:
//
//	buf = analysis.Normalize(buf[:0], text)
//	analysis.Tokenize(buf, func(tok []byte) { ... })
//
// Both functions have fast paths for ASCII text that give exactly the same
// output as the general Unicode paths.
package analysis
