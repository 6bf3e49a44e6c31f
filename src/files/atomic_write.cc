// Atomic output files (see atomic_write.h).
#include "files/atomic_write.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "hyperplan/error.h"

namespace hyperplan::files {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void FailWrite(const std::string& path, int error_number) {
  throw Error(ErrorKind::kOutputFile, path + ": cannot write: " + std::strerror(error_number));
}

}  // namespace

void WriteFileAtomically(const std::string& path, std::string_view bytes) {
  std::error_code error;
  if (fs::is_directory(path, error)) FailWrite(path, EISDIR);
  // O_EXCL on a name unique to this process: never another writer's temporary file. A short
  // name of its own (not the destination's plus a suffix), so a destination name near the
  // file system's limit still gets one. Mode 0666 lets the umask decide, as for any file the
  // user creates.
  const fs::path directory = fs::path(path).parent_path();
  int fd = -1;
  std::string temporary;
  for (int attempt = 0; fd < 0; ++attempt) {
    temporary = (directory / (".hyperplan-" + std::to_string(getpid()) + "-" +
                              std::to_string(attempt) + ".tmp"))
                    .string();
    fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0 && (errno != EEXIST || attempt > 100)) FailWrite(path, errno);
  }
  auto abandon = [&](int error_number) {
    close(fd);
    unlink(temporary.c_str());
    FailWrite(path, error_number);
  };
  for (size_t written = 0; written < bytes.size();) {
    const ssize_t n = write(fd, bytes.data() + written, bytes.size() - written);
    if (n < 0) {
      if (errno == EINTR) continue;
      abandon(errno);
    }
    written += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0) abandon(errno);
  if (close(fd) != 0) {
    const int error_number = errno;
    unlink(temporary.c_str());
    FailWrite(path, error_number);
  }
  if (rename(temporary.c_str(), path.c_str()) != 0) {
    const int error_number = errno;
    unlink(temporary.c_str());
    FailWrite(path, error_number);
  }
}

}  // namespace hyperplan::files
