package table

// AllFill reports whether rows [start, start+n) lie wholly in storage
// never written (chunks never allocated, contiguous storage never
// allocated), in the column's dataset and in its mask if it has one. Such
// rows are all stored alike, so each reads as row start does: a view can
// size them from that one row. Only chunk indexes are read. False when
// unsure, or when the rows go past the stored extent.
func (c *Column) AllFill(start, n int64) (bool, error) {
	if err := c.checkRange(start, n); err != nil || n == 0 {
		return false, err
	}
	for _, s := range []*source{&c.src, c.mask} {
		if s == nil {
			continue
		}
		if start+n > s.rows() {
			return false, nil
		}
		if ok, err := s.ds.AllFill(start*int64(s.rec), (start+n)*int64(s.rec)); !ok || err != nil {
			return false, err
		}
	}
	return true, nil
}
