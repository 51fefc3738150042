package table

import "testing"

// TestSoundMinMax checks which CHUNK_MINMAX entries count as structurally
// sound: a tampered value that keeps min <= max does (only verification
// finds it), a swapped min and max, a wrong n or count, or a missing entry
// do not.
func TestSoundMinMax(t *testing.T) {
	f := openTestFile(t, "tampered.h5")
	tb, err := Open(f, "/events", Lenient)
	if err != nil {
		t.Fatal(err)
	}
	if e, ok := tb.Column("ts").SoundMinMax(); !ok || len(e) != 4 {
		t.Errorf("ts (max+1, still sound): %d entries, %v", len(e), ok)
	}
	c := tb.Column("energy")
	good, ok := c.SoundMinMax()
	if !ok || len(good) != 4 {
		t.Fatalf("energy: %d entries, %v", len(good), ok)
	}
	for _, tc := range []struct {
		name   string
		change func(e []MinMaxEntry) []MinMaxEntry
		sound  bool
	}{
		{"as stored", func(e []MinMaxEntry) []MinMaxEntry { return e }, true},
		{"min and max swapped", func(e []MinMaxEntry) []MinMaxEntry {
			for i := range e {
				if e[i].Min != e[i].Max {
					e[i].Min, e[i].Max = e[i].Max, e[i].Min
					return e
				}
			}
			t.Fatal("every energy entry has min == max")
			return e
		}, false},
		{"n off by one", func(e []MinMaxEntry) []MinMaxEntry { e[2].N++; return e }, false},
		{"fill_count above n", func(e []MinMaxEntry) []MinMaxEntry { e[0].FillCount = e[0].N + 1; return e }, false},
		{"nan_count above n", func(e []MinMaxEntry) []MinMaxEntry { e[3].NaNCount = e[3].N + 1; return e }, false},
		{"entry missing", func(e []MinMaxEntry) []MinMaxEntry { return e[:3] }, false},
	} {
		e := tc.change(append([]MinMaxEntry(nil), good...))
		if got := c.sound(e); got != tc.sound {
			t.Errorf("%s: sound = %v, want %v", tc.name, got, tc.sound)
		}
	}
}
