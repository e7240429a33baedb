// libyaml (YAML 1.1 parser, the one PyYAML and Ruby use), seen only by HandoffConfig.
#include <yaml.h>
