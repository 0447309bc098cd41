//go:build !amd64

package index

// usePEXT is false off amd64.
const usePEXT = false

// pextPermute exists off amd64 only so that the package compiles; as
// usePEXT is false it is never called.
func pextPermute(fp, key uint64, shift uint) uint64 {
	panic("index: pextPermute without PEXT")
}

// pextPermuteSlots exists off amd64 only so that the package compiles; as
// usePEXT is false it is never called.
func pextPermuteSlots(dst, fps []uint64, slots []uint32, key uint64, shift uint) {
	panic("index: pextPermuteSlots without PEXT")
}

// pextPermuteAll exists off amd64 only so that the package compiles; as
// usePEXT is false it is never called.
func pextPermuteAll(dst, fps []uint64, key uint64, shift uint) {
	panic("index: pextPermuteAll without PEXT")
}
