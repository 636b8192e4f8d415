package keyenc

import (
	"math/rand"
	"strings"
	"testing"

	"github.com/google/uuid"
	"github.com/oklog/ulid/v2"
)

// keyenc's own UUID and ULID text forms against the packages users know:
// the same string for every value, and the same verdict and value for
// every input, valid or not.
func TestID16TextMatchesTheLibraries(t *testing.T) {
	r := rand.New(rand.NewSource(9))
	for i := 0; i < 2000; i++ {
		var b [16]byte
		r.Read(b[:])
		if i == 0 {
			b = [16]byte{}
		} else if i == 1 {
			for j := range b {
				b[j] = 0xFF
			}
		}
		if got, want := UUIDValue(b).String(), uuid.UUID(b).String(); got != want {
			t.Fatalf("UUID %x: %s, uuid says %s", b, got, want)
		}
		if got, want := ULIDValue(b).String(), ulid.ULID(b).String(); got != want {
			t.Fatalf("ULID %x: %s, ulid says %s", b, got, want)
		}
	}
	inputs := []string{
		"0190a6f1-7b2c-7def-8abc-0123456789ab", "0190A6F1-7B2C-7DEF-8ABC-0123456789AB",
		"{0190a6f1-7b2c-7def-8abc-0123456789ab}", "urn:uuid:0190a6f1-7b2c-7def-8abc-0123456789ab",
		"URN:UUID:0190a6f1-7b2c-7def-8abc-0123456789ab", "0190a6f17b2c7def8abc0123456789ab",
		"0190a6f1-7b2c-7def-8abc-0123456789a", "0190a6f1x7b2c-7def-8abc-0123456789ab",
		"{0190a6f1-7b2c-7def-8abc-0123456789ab]", "0190a6f1-7b2c-7def-8abc-0123456789ag",
		"", "01ARZ3NDEKTSV4RRFFQ69G5FAV", "01arz3ndektsv4rrffq69g5fav", "81ARZ3NDEKTSV4RRFFQ69G5FAV",
		"7ZZZZZZZZZZZZZZZZZZZZZZZZZ", "01ARZ3NDEKTSV4RRFFQ69G5FA", "01ARZ3NDEKTSV4RRFFQ69G5FAU",
		"01ARZ3NDEKTSV4RRFFQ69G5FAI", "01ARZ3NDEKTSV4RRFFQ69G5FA!", "00000000000000000000000000",
	}
	for i := 0; i < 500; i++ { // random near-misses of both forms
		var b [16]byte
		r.Read(b[:])
		s := []byte(uuid.UUID(b).String())
		if r.Intn(2) == 0 {
			s = []byte(ulid.ULID(b).String())
		}
		s[r.Intn(len(s))] = "-{}0aAzZ!IiLlOoUu7"[r.Intn(18)]
		inputs = append(inputs, string(s))
	}
	for _, s := range inputs {
		u, err := ParseUUID(s)
		w, werr := uuid.Parse(s)
		if (err == nil) != (werr == nil) || err == nil && [16]byte(u) != [16]byte(w) {
			t.Errorf("ParseUUID(%q) = %v, %v; uuid.Parse: %v, %v", s, u, err, w, werr)
		}
		l, err := ParseULID(s)
		m, merr := ulid.ParseStrict(s)
		if (err == nil) != (merr == nil) || err == nil && [16]byte(l) != [16]byte(m) {
			t.Errorf("ParseULID(%q) = %v, %v; ulid.ParseStrict: %v, %v", s, l, err, m, merr)
		}
		if err != nil && !strings.Contains(err.Error(), "not a ULID") {
			t.Errorf("ParseULID(%q): %v", s, err)
		}
	}
}

// Composite parts take any 16-byte array type for UUID and ULID parts.
func TestComposite16ByteTypes(t *testing.T) {
	b := [16]byte{1, 2, 3}
	for _, v := range []any{b, UUIDValue(b), ULIDValue(b), uuid.UUID(b), ulid.ULID(b)} {
		for _, k := range []Kind{UUID, ULID} {
			got, err := AppendComponent(nil, k, v)
			if err != nil || string(got) != string(b[:]) {
				t.Errorf("%s part from %T: %x, %v", k, v, got, err)
			}
		}
	}
	if _, err := AppendComponent(nil, UUID, [15]byte{}); err == nil {
		t.Error("a 15-byte array became a UUID part")
	}
}
