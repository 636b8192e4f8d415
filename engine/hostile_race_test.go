//go:build race

package engine_test

// The race detector reserves terabytes of address space for its shadow
// memory, which an RLIMIT_AS the hostile tests could use would refuse: those
// tests run in the normal (non-race) test run only.
const raceEnabled = true
