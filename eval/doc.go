// Package eval measures how well fingerprints, similarity measures and
// verification policies tell near-duplicates from distinct texts.
//
// It reads labelled pairs (paraphrase corpora such as MRPC, STS-B or BQ),
// makes controlled near-duplicates of real texts with a seeded edit
// generator, and plants duplicates in whole corpora. Each way ends in the same
// Report: distance distributions for positives and negatives, ROC AUC,
// precision, recall and F1 at every threshold and at each scorer's own
// decision, broken down by text length and, for generated edits, by edit kind
// and rate. Anything that gives a pair a distance and a decision plugs in as
// a Scorer.
package eval
