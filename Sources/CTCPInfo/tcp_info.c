// Not tcpi_rtt: that smoothed figure grows with delayed ACKs when the peer has nothing to send
// back (12 ms on loopback here), so a client that held its pongs back would still gain that
// much. The minimum does not move. linux/tcp.h has the field; glibc's netinet/tcp.h does not.
#include "tcp_info.h"
#include <linux/tcp.h>
#include <netinet/in.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

unsigned int quizduel_tcp_min_rtt_us(int fd) {
    struct tcp_info info;
    socklen_t length = sizeof(info);
    memset(&info, 0, sizeof(info));
    if (fd < 0 || getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return 0;
    if (length < offsetof(struct tcp_info, tcpi_min_rtt) + sizeof(info.tcpi_min_rtt)) return 0;
    return info.tcpi_min_rtt;
}

unsigned int quizduel_tcp_segs_in(int fd) {
    struct tcp_info info;
    socklen_t length = sizeof(info);
    memset(&info, 0, sizeof(info));
    if (fd < 0 || getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &length) != 0) return 0;
    if (length < offsetof(struct tcp_info, tcpi_segs_in) + sizeof(info.tcpi_segs_in)) return 0;
    return info.tcpi_segs_in;
}
