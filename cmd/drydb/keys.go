package main

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/drydb/drydb/engine/keyenc"
)

// encodeColumns encodes input column texts as a key of encoding enc. Input
// data is taken literally: a string column's text is the key's bytes, with
// no escape processing (that is for keys typed at the command line).
func encodeColumns(enc keyenc.Encoding, texts []string) ([]byte, error) {
	if enc.Kind != keyenc.Composite {
		if len(texts) != 1 {
			return nil, fmt.Errorf("%d columns for a %s key", len(texts), enc)
		}
		return literalKey(enc.Kind, texts[0])
	}
	if len(texts) != len(enc.Parts) {
		return nil, fmt.Errorf("%d columns for a %s key", len(texts), enc)
	}
	var dst []byte
	for i, k := range enc.Parts {
		v, err := componentValue(k, texts[i])
		if err != nil {
			return nil, err
		}
		if dst, err = keyenc.AppendComponent(dst, k, v); err != nil {
			return nil, err
		}
	}
	return dst, nil
}

func literalKey(k keyenc.Kind, text string) ([]byte, error) {
	switch k {
	case keyenc.String:
		if !utf8.ValidString(text) {
			return nil, fmt.Errorf("%q is not valid UTF-8", text)
		}
		return []byte(text), nil
	case keyenc.Bytes:
		return []byte(text), nil
	}
	return keyenc.ParseKey(keyenc.Encoding{Kind: k}, strings.TrimSpace(text))
}

// componentValue converts column text to the Go value AppendComponent takes
// for kind k.
func componentValue(k keyenc.Kind, text string) (any, error) {
	switch k {
	case keyenc.String:
		if !utf8.ValidString(text) {
			return nil, fmt.Errorf("%q is not valid UTF-8", text)
		}
		return text, nil
	case keyenc.Bytes:
		return []byte(text), nil
	}
	b, err := keyenc.ParseKey(keyenc.Encoding{Kind: k}, strings.TrimSpace(text))
	if err != nil {
		return nil, err
	}
	return decodeSingle(k, b)
}

// decodeSingle turns an encoded single-kind key back into the value
// AppendComponent expects.
func decodeSingle(k keyenc.Kind, b []byte) (any, error) {
	switch k {
	case keyenc.Int64:
		return keyenc.DecodeInt64(b)
	case keyenc.Uint64:
		return keyenc.DecodeUint64(b)
	case keyenc.Float64:
		return keyenc.DecodeFloat64(b)
	case keyenc.UUID, keyenc.ULID:
		var a [16]byte
		copy(a[:], b)
		return a, nil
	case keyenc.String:
		return string(b), nil
	}
	return b, nil
}

// parseCompositePrefix parses a tuple of leading components, (1) or
// (1, "a"): ParseKey encodes a short tuple as the key prefix it stands for.
func parseCompositePrefix(enc keyenc.Encoding, text string) ([]byte, error) {
	return parseKey(enc, text)
}
