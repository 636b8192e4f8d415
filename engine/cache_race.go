//go:build race

package engine

// Under the race detector the slots' words live in the Go heap: the detector
// does not see atomic operations on memory outside it (the anonymous
// mapping), so the pin protocol's happens-before edges would be invisible
// and every hand-over of a slot would be reported as a race. Race builds are
// Go test builds; the C library, which needs the words outside the heap, is
// never one.
const wordsInGoHeap = true
