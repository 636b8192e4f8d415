// Command gen builds the file the load test reads (see tests/load/README.md
// for the data it holds). Every value is derived from its key, so readers
// check answers with no reference data.
//
//	go run ./tests/load/gen OUT.drydb
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/drydb/drydb/engine"
	"github.com/drydb/drydb/engine/keyenc"
)

const (
	intRows  = 200000
	kmin     = -300000 // keys: kmin + 3*i, i in [0, intRows)
	nameRows = 100000
	groups   = 500
)

// intVal is the value of int key k: "v<k>;" repeated to a length that varies
// with k; |k| % 97 == 0 gives a value over 1 KiB (an overflow page).
func intVal(k int64) []byte {
	a := k
	if a < 0 {
		a = -a
	}
	rep := "v" + strconv.FormatInt(k, 10) + ";"
	n := int64(len(rep)) + a*31%251
	if a%97 == 0 {
		n = int64(len(rep)) + 1025 + a%3000
	}
	out := make([]byte, 0, n)
	for int64(len(out)) < n {
		out = append(out, rep...)
	}
	return out[:n]
}

func nameKey(i int) string { return fmt.Sprintf("user:%07d", i) }

func nameVal(i int) []byte {
	v := fmt.Sprintf("name-%d/grp%03d/", i, i%groups)
	for j := 0; j < i%50; j++ {
		v += "x"
	}
	return []byte(v)
}

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gen OUT.drydb")
		os.Exit(2)
	}
	t0 := time.Now()
	bad := os.Getenv("LOAD_GEN_BAD") != ""
	b, err := engine.NewBuilder(nil)
	check(err)
	defer b.Close()
	for _, spec := range []struct {
		name string
		comp engine.CompressionKind
	}{{"ints", engine.CompressNone}, {"ints_zstd", engine.CompressZstd}} {
		tb, err := b.Table(spec.name, &engine.TableOptions{
			Encoding:    keyenc.Encoding{Kind: keyenc.Int64},
			Compression: engine.Compression{Kind: spec.comp},
		})
		check(err)
		for i := 0; i < intRows; i++ {
			k := int64(kmin + 3*i)
			v := intVal(k)
			if bad && i%1000 == 0 {
				v = append(v, '!') // LOAD_GEN_BAD: a file the readers must reject
			}
			check(tb.Append(keyenc.EncodeInt64(k), v))
		}
	}
	tb, err := b.Table("names", &engine.TableOptions{Encoding: keyenc.Encoding{Kind: keyenc.String}})
	check(err)
	ix, err := tb.AddIndex("by_grp", &engine.IndexOptions{Encoding: keyenc.Encoding{Kind: keyenc.String}})
	check(err)
	for i := 0; i < nameRows; i++ {
		k := []byte(nameKey(i))
		check(tb.Append(k, nameVal(i)))
		if bad && i%1000 == 7 {
			continue // LOAD_GEN_BAD: an index entry missing
		}
		check(ix.Add([]byte(fmt.Sprintf("grp%03d", i%groups)), k))
	}
	rep, err := b.BuildToFile(os.Args[1])
	check(err)
	fmt.Printf("gen: %s: %d bytes in %v\n", os.Args[1], rep.Bytes, time.Since(t0).Round(time.Millisecond))
}

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}
