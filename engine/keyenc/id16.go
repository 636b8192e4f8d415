package keyenc

import (
	"reflect"
	"strings"
)

// UUIDValue and ULIDValue are the values of uuid and ulid keys: 16 bytes, convertible
// to and from github.com/google/uuid's UUID and github.com/oklog/ulid/v2's
// ULID (same layout). keyenc has its own types, and its own text forms
// (checked against those packages in the tests), so that the library does
// not link them: both pull in crypto/rand (Go's FIPS random generator, with
// AES and SHA-2/3) and uuid also package net, a quarter of a megabyte of
// the C library for nothing its keys need.
type (
	UUIDValue [16]byte
	ULIDValue [16]byte
)

const hexDigits = "0123456789abcdef"

// String is the canonical form, 8-4-4-4-12 lower-case hex digits.
func (u UUIDValue) String() string {
	var b [36]byte
	j := 0
	for i, c := range u {
		if i == 4 || i == 6 || i == 8 || i == 10 {
			b[j] = '-'
			j++
		}
		b[j], b[j+1] = hexDigits[c>>4], hexDigits[c&15]
		j += 2
	}
	return string(b[:])
}

// ParseUUID reads the forms uuid.Parse reads: xxxxxxxx-xxxx-xxxx-xxxx-
// xxxxxxxxxxxx, the same in braces or after "urn:uuid:" (any case), or 32
// hex digits.
func ParseUUID(s string) (UUIDValue, error) {
	var u UUIDValue
	switch len(s) {
	case 36:
	case 38: // {...}; like uuid.Parse, any two enclosing characters
		s = s[1:37]
	case 45:
		if !strings.EqualFold(s[:9], "urn:uuid:") {
			return u, badKey("%q is not a UUID", s)
		}
		s = s[9:]
	case 32:
		for i := range u {
			h, ok1 := unhex(s[2*i])
			l, ok2 := unhex(s[2*i+1])
			if !ok1 || !ok2 {
				return u, badKey("%q is not a UUID", s)
			}
			u[i] = h<<4 | l
		}
		return u, nil
	default:
		return u, badKey("%q is not a UUID", s)
	}
	if s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return u, badKey("%q is not a UUID", s)
	}
	for i, x := range [16]int{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34} {
		h, ok1 := unhex(s[x])
		l, ok2 := unhex(s[x+1])
		if !ok1 || !ok2 {
			return u, badKey("%q is not a UUID", s)
		}
		u[i] = h<<4 | l
	}
	return u, nil
}

func unhex(c byte) (byte, bool) {
	switch {
	case '0' <= c && c <= '9':
		return c - '0', true
	case 'a' <= c && c <= 'f':
		return c - 'a' + 10, true
	case 'A' <= c && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// crockford is the ULID alphabet (Crockford's base32: no I, L, O, U).
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// String is the 26-character Crockford base32 form (the 128 bits with two
// zero bits in front).
func (u ULIDValue) String() string {
	var b [26]byte
	// 130 bits in 26 groups of 5, from the last
	for i := 25; i >= 0; i-- {
		bit := 128 - 5*(25-i) - 5 // first bit of group i, counting the two in front as -2..-1
		var v byte
		for j := 0; j < 5; j++ {
			v <<= 1
			if p := bit + j; p >= 0 && u[p/8]&(0x80>>(p%8)) != 0 {
				v |= 1
			}
		}
		b[i] = crockford[v]
	}
	return string(b[:])
}

// ParseULID reads the 26-character form as ulid.ParseStrict does: every
// character of Crockford's alphabet (either case), and a first character of
// at most 7 (more would not fit 128 bits).
func ParseULID(s string) (ULIDValue, error) {
	var u ULIDValue
	if len(s) != 26 || s[0] > '7' {
		return u, badKey("%q is not a ULID", s)
	}
	for i := 0; i < 26; i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		v := strings.IndexByte(crockford, c)
		if v < 0 {
			return u, badKey("%q is not a ULID", s)
		}
		bit := 128 - 5*(25-i) - 5
		for j := 0; j < 5; j++ {
			if p := bit + j; p >= 0 && v&(0x10>>j) != 0 {
				u[p/8] |= 0x80 >> (p % 8)
			}
		}
	}
	return u, nil
}

// bytes16 returns v's bytes when v is a 16-byte array of any named type
// (UUIDValue, ULIDValue, uuid.UUID, ulid.ULID, [16]byte).
func bytes16(v any) ([16]byte, bool) {
	switch x := v.(type) {
	case [16]byte:
		return x, true
	case UUIDValue:
		return x, true
	case ULIDValue:
		return x, true
	}
	r := reflect.ValueOf(v)
	if r.Kind() == reflect.Array && r.Len() == 16 && r.Type().Elem().Kind() == reflect.Uint8 {
		var b [16]byte
		reflect.Copy(reflect.ValueOf(&b).Elem(), r)
		return b, true
	}
	return [16]byte{}, false
}
