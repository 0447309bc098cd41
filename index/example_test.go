package index_test

import (
	"fmt"

	"github.com/neardup/neardup/index"
)

func Example() {
	ix, err := index.New(index.Options{K: 3, Design: index.Seed4x16()})
	if err != nil {
		panic(err)
	}
	ix.AddBatch([]index.Entry{
		{ID: 1, FP: 0x0123456789abcdef, Time: 100},
		{ID: 2, FP: 0x0123456789abcdee, Time: 200}, // 1 bit from ID 1
		{ID: 3, FP: 0xfedcba9876543210, Time: 300},
	})
	for _, m := range ix.Query(0x0123456789abcdef, 3, nil) {
		fmt.Printf("id %d at distance %d\n", m.ID, m.Distance)
	}
	fmt.Println("expired:", ix.ExpireBefore(150), "left:", ix.Len())
	index.Pairs([]index.Entry{{ID: 7, FP: 0xff}, {ID: 8, FP: 0xfe}, {ID: 9, FP: 0xff00}}, 3, func(a, b index.Entry, d int) {
		fmt.Printf("pair %d %d at distance %d\n", a.ID, b.ID, d)
	})
	// Output:
	// id 1 at distance 0
	// id 2 at distance 1
	// expired: 1 left: 2
	// pair 7 8 at distance 1
}
