package structural

import (
	"strings"

	"k8s.io/kube-openapi/pkg/validation/strfmt"
)

// stringFormats are the string formats kube-apiserver validates in custom
// resources (apiextensions-apiserver's supported formats, with go-openapi's
// normalisation that drops "-"). Any other format is ignored, as kube does.
var stringFormats = map[string]bool{
	"bsonobjectid": true, "uri": true, "email": true, "hostname": true,
	"ipv4": true, "ipv6": true, "cidr": true, "mac": true,
	"uuid": true, "uuid3": true, "uuid4": true, "uuid5": true,
	"isbn": true, "isbn10": true, "isbn13": true, "creditcard": true,
	"ssn": true, "hexcolor": true, "rgbcolor": true, "byte": true,
	"password": true, "date": true, "duration": true, "datetime": true,
	"k8sshortname": true, "k8slongname": true,
}

// compileFormat keeps the format only where kube-apiserver keeps it: string
// formats from the supported list on string (or untyped) schemas, int32 and
// int64 on integers, float and double on numbers.
func (c *compiler) compileFormat(n *node, format string) {
	if format == "" {
		return
	}
	single := ""
	if !strings.Contains(n.typeNames, ",") {
		single = n.typeNames
	}
	switch single {
	case "", "string":
		if !stringFormats[strings.ReplaceAll(format, "-", "")] || !strfmt.Default.ContainsName(format) {
			return
		}
		n.format = format
		n.formatOK = formatValidator(format)
	case "integer":
		if format == "int32" || format == "int64" {
			n.format, n.numFormat = format, format
		}
	case "number":
		if format == "float" || format == "double" {
			n.format, n.numFormat = format, format
		}
	}
}

// lockFreeFormats are kube-openapi's format checks that its strfmt package
// exports, called directly.
var lockFreeFormats = map[string]func(string) bool{
	"bsonobjectid": strfmt.IsBSONObjectID, "date": strfmt.IsDate, "datetime": strfmt.IsDateTime,
	"duration": strfmt.IsDuration, "email": strfmt.IsEmail, "hostname": strfmt.IsHostname,
	"uuid": strfmt.IsUUID, "uuid3": strfmt.IsUUID3, "uuid4": strfmt.IsUUID4, "uuid5": strfmt.IsUUID5,
	"k8sshortname": strfmt.IsShortName, "k8slongname": strfmt.IsLongName,
	"password": func(string) bool { return true },
}

// formatValidator returns kube-openapi's check for a string format. The
// checks strfmt does not export go through a registry of the node's own:
// strfmt.Default serialises every check behind one mutex.
func formatValidator(format string) func(string) bool {
	if f, ok := lockFreeFormats[strings.ReplaceAll(format, "-", "")]; ok {
		return f
	}
	reg := strfmt.NewFormats()
	return func(s string) bool { return reg.Validates(format, s) }
}
