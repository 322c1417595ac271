// Not tcpi_rtt: that smoothed figure grows with delayed ACKs when the peer has nothing to send
// back (12 ms on loopback here), so a client that held its pongs back would still gain that
// much. The minimum does not move. linux/tcp.h has the field; glibc's netinet/tcp.h does not.
#include "tcp_info.h"
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

// The socket's TCP_INFO into `info`; how many bytes the kernel filled, or 0 when it cannot be
// read. An older kernel fills less than this header's struct: each reader checks its field.
static socklen_t read_tcp_info(int fd, struct tcp_info *info) {
    socklen_t length = sizeof(*info);
    memset(info, 0, sizeof(*info));
    if (fd < 0 || getsockopt(fd, IPPROTO_TCP, TCP_INFO, info, &length) != 0) return 0;
    return length;
}

// Whether the kernel filled `field` (a field it did not fill reads as 0 here: no figure).
#define HAS_FIELD(length, field) ((length) >= offsetof(struct tcp_info, field) + sizeof(((struct tcp_info *)0)->field))

unsigned int quizduel_tcp_min_rtt_us(int fd) {
    struct tcp_info info;
    socklen_t length = read_tcp_info(fd, &info);
    return HAS_FIELD(length, tcpi_min_rtt) ? info.tcpi_min_rtt : 0;
}

unsigned int quizduel_tcp_segs_in(int fd) {
    struct tcp_info info;
    socklen_t length = read_tcp_info(fd, &info);
    return HAS_FIELD(length, tcpi_segs_in) ? info.tcpi_segs_in : 0;
}
