package structural

import (
	"fmt"
	"math"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// number is kube-openapi's number validator: the range of the value for its
// type and format, then multipleOf, minimum and maximum, comparing
// integers as integers and floats as floats.
func (v *validator) number(n *node, x any) {
	typeName := n.numType
	if !inRange(x, typeName, n.numFormat) {
		v.rangeErr("Checked", typeName, n.numFormat)
	}
	val := numberOf(x)
	i, isInt, f := val.i, val.isInt, val.f
	if n.multipleOf != nil {
		m := *n.multipleOf
		if inRange(m, typeName, n.numFormat) && isInt {
			if mi := int64(m); mi <= 0 {
				v.errs = append(v.errs, field.Invalid(v.p.errPath(), mi,
					fmt.Sprintf("factor MultipleOf declared for %s must be positive: %v", v.p.String(), mi)))
			} else if i%mi != 0 {
				v.notMultiple(mi, x)
			}
		} else {
			if !inRange(m, typeName, n.numFormat) {
				v.rangeErr("MultipleOf", typeName, n.numFormat)
			}
			v.multipleFloat(f, m, x)
		}
	}
	if n.minimum != nil {
		v.bound(n, val, limit{value: *n.minimum, exclusive: n.exclusiveMin, min: true})
	}
	if n.maximum != nil {
		v.bound(n, val, limit{value: *n.maximum, exclusive: n.exclusiveMax})
	}
}

// numberValue is a value a number schema checks: x as decoded, and as an
// integer (when it is one) and a float.
type numberValue struct {
	x     any
	i     int64
	isInt bool
	f     float64
}

func numberOf(x any) numberValue {
	i, isInt := x.(int64)
	return numberValue{x: x, i: i, isInt: isInt, f: asFloat(x)}
}

// limit is a schema's minimum (min) or maximum, exclusive or not.
type limit struct {
	value     float64
	exclusive bool
	min       bool
}

// fails reports whether x is out of the limit, compared as integers when
// both are (asInt), and the limit as the message shows it.
func (l limit) fails(x numberValue, asInt bool) (bool, any) {
	if asInt {
		b := int64(l.value)
		out := x.i > b
		if l.min {
			out = x.i < b
		}
		return out || (l.exclusive && x.i == b), b
	}
	out := x.f > l.value
	if l.min {
		out = x.f < l.value
	}
	return out || (l.exclusive && x.f == l.value), l.value
}

// relation is how kube words the limit in its message.
func (l limit) relation() string {
	switch {
	case l.min && l.exclusive:
		return "greater than"
	case l.min:
		return "greater than or equal to"
	case l.exclusive:
		return "less than"
	}
	return "less than or equal to"
}

func (v *validator) multipleFloat(f, m float64, x any) {
	if m <= 0 {
		v.errs = append(v.errs, field.Invalid(v.p.errPath(), m,
			fmt.Sprintf("factor MultipleOf declared for %s must be positive: %v", v.p.String(), m)))
		return
	}
	var mult float64
	if m < 1 {
		mult = 1 / m * f
	} else {
		mult = f / m
	}
	if !isJSONInteger(mult) {
		v.notMultiple(m, x)
	}
}

func (v *validator) notMultiple(factor, x any) {
	v.errs = append(v.errs, field.Invalid(v.p.errPath(), x,
		fmt.Sprintf("%s in body should be a multiple of %v", v.p.String(), factor)))
}

// bound checks a minimum or maximum.
func (v *validator) bound(n *node, x numberValue, l limit) {
	boundOK := inRange(l.value, n.numType, n.numFormat)
	if !boundOK {
		name := "Maximum boundary"
		if l.min {
			name = "Minimum boundary"
		}
		v.rangeErr(name, n.numType, n.numFormat)
	}
	if fails, shown := l.fails(x, boundOK && x.isInt); fails {
		v.errs = append(v.errs, field.Invalid(v.p.errPath(), x.x,
			fmt.Sprintf("%s in body should be %s %v", v.p.String(), l.relation(), shown)))
	}
}

// rangeErr reports a number that does not fit its declared type and format;
// kube-apiserver reports it without a field.
func (v *validator) rangeErr(prefix, typeName, format string) {
	if typeName == "" {
		typeName = "number"
	}
	if format != "" {
		v.compositeErr(fmt.Sprintf("%s value must be of type %s with format %s in %s", prefix, typeName, format, v.p.String()))
		return
	}
	v.compositeErr(fmt.Sprintf("%s value must be of type %s (default format) in %s", prefix, typeName, v.p.String()))
}

// inRange says whether x (int64 or float64) is representable in typeName
// with format, as kube-openapi's IsValueValidAgainstRange decides.
func inRange(x any, typeName, format string) bool {
	switch typeName {
	case "integer":
		if i, ok := x.(int64); ok {
			return format != "int32" || (i >= math.MinInt32 && i <= math.MaxInt32)
		}
		f := asFloat(x)
		if f != math.Trunc(f) || math.IsInf(f, 0) {
			return false
		}
		if format == "int32" {
			return f >= math.MinInt32 && f <= math.MaxInt32
		}
		return f >= -9223372036854775808 && f < 9223372036854775808
	default:
		if format == "float" {
			f := math.Abs(asFloat(x))
			return f <= math.MaxFloat32
		}
		return true
	}
}

func asFloat(x any) float64 {
	switch x := x.(type) {
	case int64:
		return float64(x)
	case float64:
		return x
	case int:
		return float64(x)
	}
	return 0
}

// isJSONInteger is go-openapi's IsFloat64AJSONInteger.
func isJSONInteger(f float64) bool {
	const maxJSON = 1<<53 - 1
	if math.IsNaN(f) || math.IsInf(f, 0) || f < -maxJSON || f > maxJSON {
		return false
	}
	r := math.Round(f)
	if f == r {
		return true
	}
	if r == 0 {
		return false
	}
	return math.Abs(f-r) < 1e-9*math.Abs(r)
}
