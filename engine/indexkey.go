package engine

// Index trees store one row per (index key, primary key) pair under the key
//
//	escape(ikey) 0x00 0x01 pk
//
// where escape replaces every 0x00 with 0x00 0xFF. The escaping keeps byte
// order equal to (ikey, pk) order even when one index key is a prefix of
// another, and the terminator marks where the primary key starts. Range
// bounds on index keys translate to bounds on these keys (see indexBound).

func appendEscaped(dst, k []byte) []byte {
	for _, c := range k {
		if c == 0 {
			dst = append(dst, 0, 0xFF)
		} else {
			dst = append(dst, c)
		}
	}
	return dst
}

func appendIndexKey(dst, ikey, pk []byte) []byte {
	dst = appendEscaped(dst, ikey)
	dst = append(dst, 0, 1)
	return append(dst, pk...)
}

// splitIndexKey returns the escaped index key (without terminator) and the
// primary key; ok is false for a malformed entry.
func splitIndexKey(k []byte) (esc, pk []byte, ok bool) {
	for i := 0; i+1 < len(k); i++ {
		if k[i] == 0 {
			switch k[i+1] {
			case 1:
				return k[:i], k[i+2:], true
			case 0xFF:
				i++
			default:
				return nil, nil, false
			}
		}
	}
	return nil, nil, false
}

func unescapeKey(esc []byte) []byte {
	out := make([]byte, 0, len(esc))
	for i := 0; i < len(esc); i++ {
		out = append(out, esc[i])
		if esc[i] == 0 {
			i++
		}
	}
	return out
}
