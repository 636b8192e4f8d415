package keyenc_test

import (
	"bytes"
	"fmt"

	"github.com/drydb/drydb/engine/keyenc"
)

func Example() {
	enc, _ := keyenc.ParseEncoding("composite(string,int64)")
	a, _ := keyenc.EncodeComposite(enc.Parts, []any{"alice", -5})
	b, _ := keyenc.EncodeComposite(enc.Parts, []any{"alice", 3})
	prefix, _ := keyenc.EncodeComposite(enc.Parts, []any{"alice"})

	fmt.Printf("%x\n", a)
	fmt.Println(bytes.Compare(a, b), bytes.HasPrefix(b, prefix))
	fmt.Println(keyenc.FormatKey(enc, b))

	k, _ := keyenc.ParseKey(enc, `("alice", 3)`)
	fmt.Println(bytes.Equal(k, b), enc.Validate(k) == nil)
	fmt.Println(keyenc.Encoding{Kind: keyenc.Int64}.Validate([]byte{1, 2, 3}))
	// Output:
	// 616c69636500017ffffffffffffffb
	// -1 true
	// ("alice", 3)
	// true true
	// drydb: bad key: int64 key must be 8 bytes, got 3
}
