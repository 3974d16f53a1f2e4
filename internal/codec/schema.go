package codec

// EDMType returns the EDM type the plan stores a property as, for checking
// filter literals and projections before a request. ok is false for a name
// the plan does not map and for every property of table.Entity, which has
// no static types.
func (p *Plan) EDMType(name string) (edm string, ok bool) {
	switch {
	case name == "PartitionKey" || name == "RowKey":
		return "Edm.String", true
	case name == "Timestamp":
		return "Edm.DateTime", true
	case p.dyn != nil:
		return "", false
	}
	i, ok := p.byName[name]
	if !ok {
		return "", false
	}
	switch k := p.fields[i].kind; k {
	case kString, kText, kJSON:
		return "Edm.String", true
	case kBool:
		return "Edm.Boolean", true
	case kInt32:
		return "Edm.Int32", true
	default:
		return annotation(k), true
	}
}

// Properties lists the plan's properties in declaration order, keys,
// ETag and Timestamp excluded; none for table.Entity.
func (p *Plan) Properties() []string {
	names := make([]string, len(p.fields))
	for i := range p.fields {
		names[i] = p.fields[i].name
	}
	return names
}

// IsDynamic reports a plan of table.Entity, whose properties have no
// static names or types.
func (p *Plan) IsDynamic() bool { return p.dyn != nil }
