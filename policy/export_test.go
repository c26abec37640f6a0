package policy

// AgentToken exposes the reading of an agent that Group uses.
var AgentToken = agentToken
