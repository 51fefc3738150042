package arrowexport

// Numbers in the form the CSV view writes them — plain decimal integers
// and decimal floats — parse here without strconv's generality; anything
// else (a sign '+', an exponent too large for an exact result, "nan",
// hexadecimal, underscores) is left to strconv, which also words the
// errors.

// parseDecimal parses an integer of 1 to 18 decimal digits after an
// optional '-'; ok is false for anything else.
func parseDecimal(f []byte) (v int64, ok bool) {
	d := f
	if len(d) > 0 && d[0] == '-' {
		d = d[1:]
	}
	if len(d) == 0 || len(d) > 18 {
		return 0, false
	}
	for _, c := range d {
		c -= '0'
		if c > 9 {
			return 0, false
		}
		v = v*10 + int64(c)
	}
	if len(d) < len(f) {
		v = -v
	}
	return v, true
}

// fitsBits reports whether v fits a signed (or unsigned) integer of the
// given bits.
func fitsBits(v int64, bits int, signed bool) bool {
	switch {
	case !signed:
		return v >= 0 && (bits >= 64 || v < 1<<bits)
	case bits >= 64:
		return true
	}
	return v >= -(1<<(bits-1)) && v < 1<<(bits-1)
}

// exactPow10 are the powers of ten a float64 holds exactly.
var exactPow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
	1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseDecimalFloat parses [-]digits[.digits][(e|E)[+|-]digits] at the
// given bits (32 or 64) when one IEEE multiplication or division of
// exact operands gives the correctly rounded result (Clinger's fast
// path, as strconv takes it: the digits fit the mantissa, the power of
// ten is exact), so that it is what strconv.ParseFloat returns; ok is
// false for anything else.
func parseDecimalFloat(f []byte, bits int) (v float64, ok bool) {
	i, neg := 0, len(f) > 0 && f[0] == '-'
	if neg {
		i++
	}
	var mant uint64
	digits, exp := 0, 0
	for ; i < len(f) && f[i]-'0' <= 9; i++ {
		mant, digits = mant*10+uint64(f[i]-'0'), digits+1
	}
	if i < len(f) && f[i] == '.' {
		for i++; i < len(f) && f[i]-'0' <= 9; i++ {
			mant, digits, exp = mant*10+uint64(f[i]-'0'), digits+1, exp-1
		}
	}
	if digits == 0 || digits > 19 { // 19 digits cannot overflow mant
		return 0, false
	}
	if i < len(f) && (f[i] == 'e' || f[i] == 'E') {
		i++
		eneg := i < len(f) && f[i] == '-'
		if i < len(f) && (f[i] == '-' || f[i] == '+') {
			i++
		}
		e, edigits := 0, 0
		for ; i < len(f) && f[i]-'0' <= 9 && edigits < 4; i++ {
			e, edigits = e*10+int(f[i]-'0'), edigits+1
		}
		if edigits == 0 {
			return 0, false
		}
		if eneg {
			e = -e
		}
		exp += e
	}
	if i != len(f) {
		return 0, false
	}
	if bits == 32 {
		if mant > 1<<24 || exp < -10 || exp > 10 {
			return 0, false
		}
		x, p := float32(mant), float32(exactPow10[max(exp, -exp)])
		if exp < 0 {
			x /= p
		} else {
			x *= p
		}
		v = float64(x)
	} else {
		if mant > 1<<53 || exp < -22 || exp > 22 {
			return 0, false
		}
		v = float64(mant)
		if exp < 0 {
			v /= exactPow10[-exp]
		} else {
			v *= exactPow10[exp]
		}
	}
	if neg {
		v = -v
	}
	return v, true
}
