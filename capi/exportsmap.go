package main

import _ "embed"

// exportsMap is capi/exports.map, the linker version script the Makefile
// and CMakeLists.txt pass through -extldflags (capi/soflags names it). go
// build's cache does not look at files named only in linker flags, so
// without this an edit of the script left a cached library with the old
// exports; embedding it makes its content part of this package's inputs,
// and an edit relinks.
//
//go:embed exports.map
var exportsMap string
