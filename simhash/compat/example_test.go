package compat_test

import (
	"fmt"

	"github.com/neardup/neardup/simhash/compat"
)

func ExampleMfonda64() {
	fmt.Printf("%016x\n", compat.Mfonda64([]byte("this is a test phrase")))
	// Output: 8c3a5f7e9ecb3f35
}

func ExamplePyFeatures64() {
	fmt.Println(compat.PyFeatures64([]compat.Feature{{Text: "aaa", Weight: 1}, {Text: "bbb", Weight: 1}}))
	// Output: 57087923692560392
}
