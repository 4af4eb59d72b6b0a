"""The read path: a budgeted, ranked slice of the log and the beliefs for one agent's prompt."""
