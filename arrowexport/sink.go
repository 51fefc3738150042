package arrowexport

// captureSink counts the bytes written to it and keeps them only while
// capture is set: layout passes write whole files through it but keep just
// the head and the foot.
type captureSink struct {
	n       int64
	capture bool
	buf     []byte
}

func (s *captureSink) Write(p []byte) (int, error) {
	s.n += int64(len(p))
	if s.capture {
		s.buf = append(s.buf, p...)
	}
	return len(p), nil
}

// take returns the captured bytes and starts a new capture.
func (s *captureSink) take() []byte {
	b := s.buf
	s.buf = nil
	return b
}
