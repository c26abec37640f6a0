package policy
import ("testing";"unsafe";"fmt")
func TestZZ(t *testing.T) { fmt.Println(unsafe.Sizeof(Robots{}), unsafe.Sizeof(Group{}), unsafe.Sizeof(rules{}), unsafe.Sizeof(agent{}), unsafe.Sizeof(matcher{}), unsafe.Sizeof(group{}), unsafe.Sizeof(directive{}), unsafe.Sizeof(agentIndex{})) }
