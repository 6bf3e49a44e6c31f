// A whole input file as one string (see text_file.h).
#include "hyperplan/text_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>

#include "hyperplan/error.h"

namespace hyperplan {

std::string ReadTextFile(const std::string& path) {
  auto fail = [&path](int error_number) {
    return Error(ErrorKind::kInputFile,
                 path + ": cannot read: " + std::string(std::strerror(error_number)));
  };
  errno = 0;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file(std::fopen(path.c_str(), "rb"),
                                                       &std::fclose);
  if (!file) throw fail(errno);
  std::string text;
  char buffer[1 << 14];
  size_t count = 0;
  while ((count = std::fread(buffer, 1, sizeof buffer, file.get())) > 0) {
    text.append(buffer, count);
  }
  // fopen succeeds on a directory on Linux; the read is what fails, with EISDIR.
  if (std::ferror(file.get())) throw fail(errno != 0 ? errno : EIO);
  return text;
}

}  // namespace hyperplan
