package nilsimsa_test

import (
	"fmt"
	"io"
	"strings"

	"github.com/neardup/neardup/nilsimsa"
)

// A Digest is an io.Writer: stream a message of any size through it.
func ExampleDigest() {
	d := nilsimsa.New()
	io.Copy(d, strings.NewReader("The quick brown fox"))
	fmt.Printf("%x\n", d.Sum(nil))
	// Output: 0a31b4be01a0808a29e0ec60e9a258545dc0526770022348380a2128708f2fdb
}
