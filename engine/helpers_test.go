package engine

import (
	"encoding/binary"
	"testing"
)

func int64Key(v int64) []byte {
	var k [8]byte
	binary.BigEndian.PutUint64(k[:], uint64(v)^(1<<63))
	return k[:]
}

func build(t testing.TB, ps int, fill func(b *Builder)) *DB {
	t.Helper()
	b, err := NewBuilder(&BuilderOptions{PageSize: ps})
	if err != nil {
		t.Fatal(err)
	}
	fill(b)
	data, _, err := b.BuildToBytes()
	if err != nil {
		t.Fatal(err)
	}
	db, err := OpenBytes(data, &Options{Verify: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return db
}
