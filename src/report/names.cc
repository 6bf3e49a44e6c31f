// Printable names for ids (see names.h).
#include "report/names.h"

namespace hyperplan::report {

std::string BlockName(const Graph& graph, ValueId value, NodeId scratch_node) {
  if (value == kNoValue && scratch_node != kNoNode) {
    return "body scratch of " + NodeName(graph, scratch_node);
  }
  return ValueName(graph, value);
}

}  // namespace hyperplan::report
