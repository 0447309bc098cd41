package cluster

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
)

func TestBuild(t *testing.T) {
	tests := []struct {
		name  string
		n     int
		pairs []Pair
		opts  Options
		want  []Group
	}{
		{"none", 3, nil, Options{}, nil},
		{"one pair", 3, []Pair{{2, 1, 3}}, Options{}, []Group{{1, []int{1, 2}}}},
		{"chain", 5, []Pair{{4, 3, 1}, {3, 0, 1}}, Options{}, []Group{{0, []int{0, 3, 4}}}},
		{"two groups", 6, []Pair{{5, 4, 0}, {0, 2, 2}}, Options{}, []Group{{0, []int{0, 2}}, {4, []int{4, 5}}}},
		{"self and out of range ignored", 3, []Pair{{1, 1, 0}, {0, 9, 0}}, Options{}, nil},
		{"verify rejects", 3, []Pair{{0, 1, 1}, {1, 2, 1}},
			Options{Verify: func(a, b int) bool { return a+b != 1 }}, []Group{{1, []int{1, 2}}}},
		// 0-1 and 1-2 are close, 0-2 is not: a chain without Strict, two
		// items and a single with it.
		{"strict stops chains", 3, []Pair{{0, 1, 1}, {1, 2, 2}},
			Options{Verify: func(a, b int) bool { return !(a == 0 && b == 2 || a == 2 && b == 0) }, Strict: true},
			[]Group{{0, []int{0, 1}}}},
		{"chain without strict", 3, []Pair{{0, 1, 1}, {1, 2, 2}},
			Options{Verify: func(a, b int) bool { return !(a == 0 && b == 2 || a == 2 && b == 0) }},
			[]Group{{0, []int{0, 1, 2}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := Build(tc.n, tc.pairs, tc.opts)
			if len(got) == 0 && len(tc.want) == 0 {
				return
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}

// TestUnionFindMatchesNaive compares random unions with a naive labelling.
func TestUnionFindMatchesNaive(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for trial := range 50 {
		n := 1 + r.IntN(60)
		u := New(n)
		label := make([]int, n)
		for i := range label {
			label[i] = i
		}
		for range r.IntN(2 * n) {
			a, b := r.IntN(n), r.IntN(n)
			merged := u.Union(a, b)
			la, lb := label[a], label[b]
			if merged != (la != lb) {
				t.Fatalf("trial %d: Union(%d,%d) = %v", trial, a, b, merged)
			}
			lo := min(la, lb)
			for i := range label {
				if label[i] == la || label[i] == lb {
					label[i] = lo
				}
			}
		}
		for i := range n {
			if u.Find(i) != label[i] {
				t.Fatalf("trial %d: Find(%d) = %d, want %d (the smallest member)", trial, i, u.Find(i), label[i])
			}
		}
	}
}

func Example() {
	// Documents 0..4; 0~3 and 3~4 are near-duplicates, 1~2 too.
	pairs := []Pair{{A: 3, B: 4, Distance: 2}, {A: 0, B: 3, Distance: 1}, {A: 1, B: 2, Distance: 0}}
	for _, g := range Build(5, pairs, Options{}) {
		fmt.Println(g.Representative, g.Members)
	}
	// Output:
	// 0 [0 3 4]
	// 1 [1 2]
}

var sink []Group

func BenchmarkBuild(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	n := 1 << 20
	pairs := make([]Pair, n/2)
	for i := range pairs {
		pairs[i] = Pair{r.IntN(n), r.IntN(n), r.IntN(4)}
	}
	b.ReportAllocs()
	for b.Loop() {
		sink = Build(n, pairs, Options{})
	}
}

// TestUnionFindOutOfRange checks that Find and Union panic for items
// outside [0, Len()), those that int32 would wrap into range included, and
// that a failed Union leaves the sets alone.
func TestUnionFindOutOfRange(t *testing.T) {
	panics := func(f func()) (p bool) {
		defer func() { p = recover() != nil }()
		f()
		return false
	}
	u := New(3)
	for _, i := range []int{-1, 3, 1 << 32, 1<<32 + 2, -1 << 32} {
		if !panics(func() { u.Find(i) }) {
			t.Errorf("Find(%d) did not panic", i)
		}
		if !panics(func() { u.Union(1, i) }) || !panics(func() { u.Union(i, 2) }) {
			t.Errorf("Union with %d did not panic", i)
		}
	}
	if g := u.Groups(2); len(g) != 0 {
		t.Errorf("failed unions merged sets: %v", g)
	}
}
