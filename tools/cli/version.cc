// --version (tools/cli/cli.h): the Kiln version and git commit recorded
// when CMake configured the build (kiln_build_info.h, generated), and the
// module format this build writes and reads.
#include "kiln_build_info.h"
#include "schema/format_version.h"
#include "tools/cli/cli.h"

namespace kiln::tools {

std::string VersionText(const std::string& tool) {
  return tool + " " + KILN_VERSION + " (commit " + KILN_GIT_COMMIT + ", module format " +
         std::to_string(kFormatMajor) + "." + std::to_string(kFormatMinor) + ")";
}

}  // namespace kiln::tools
