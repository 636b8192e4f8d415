//go:build !race

package engine

// wordsInGoHeap: see cache_race.go. Outside race builds the slots' words
// share the hints' anonymous mapping, where C may read and pin them.
const wordsInGoHeap = false
