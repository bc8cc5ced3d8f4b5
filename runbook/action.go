package runbook

// Action is what a step does, typed and validated by Load for the run it
// was expanded for: the engine runs it without reading the step's text or
// a flag by name. Each directive's registry entry builds its Action; a
// directive family shares one type (Fault for kill, stop, start, ...).
type Action interface{ action() }
