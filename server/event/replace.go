package event

// Replace makes events the store's whole content, numbered from 1 in their
// order, as if the store had just been created and they had been created in
// turn: the control API's seed and reset. It returns them as stored.
func (m *Memory) Replace(events []Event) []Event {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nextID = 0
	m.byID = map[int64]*Event{}
	m.indexes = map[string][]*Event{"id": nil}
	out := make([]Event, 0, len(events))
	for _, e := range events {
		m.nextID++
		e.ID = m.nextID
		e.compute()
		stored := &e
		m.byID[e.ID] = stored
		m.indexes["id"] = append(m.indexes["id"], stored)
		out = append(out, e)
	}
	return out
}
