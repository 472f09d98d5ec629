package event

// Replace makes events the store's whole content, numbered from 1 in their
// order, as if the store had just been created and they had been created in
// turn: the start, and the control API's seed and reset. It returns how
// many there are.
//
// The store keeps events, the slice itself, rather than a copy of each
// (a million demo events would be held twice at start): the caller must
// not use it afterwards.
func (m *Memory) Replace(events []Event) int {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nextID = int64(len(events))
	m.byID = make(map[int64]*Event, len(events))
	m.managed = map[int64]int{}
	index := make([]*Event, len(events))
	for i := range events {
		e := &events[i]
		e.ID = int64(i + 1)
		e.compute()
		m.byID[e.ID] = e
		m.managed[e.ManagerID]++
		index[i] = e
	}
	m.indexes = map[string][]*Event{"id": index}
	return len(events)
}

// All returns copies of every event, by id: what Replace takes back.
func (m *Memory) All() []Event {
	m.mu.RLock()
	defer m.mu.RUnlock()
	out := make([]Event, 0, len(m.byID))
	for _, e := range m.indexes["id"] {
		out = append(out, *e)
	}
	return out
}
