// The kernel's lowest round trip of a TCP socket, for issue 26's bound on a direct client's
// credited lag. Compiled on its own (tcp_info.c) because it needs linux/tcp.h's struct, which
// clashes with glibc's netinet/tcp.h wherever both are seen (Swift's Glibc module includes the
// latter): this header declares only the function.
#ifndef QUIZDUEL_TCP_INFO_H
#define QUIZDUEL_TCP_INFO_H

// TCP_INFO's tcpi_min_rtt (a windowed minimum over minutes) in µs, or 0 when it cannot be read.
unsigned int quizduel_tcp_min_rtt_us(int fd);

// TCP_INFO's tcpi_segs_in, the segments the socket has received, or 0 when it cannot be read:
// the tests count the segments a reply came in (one send is one segment on loopback).
unsigned int quizduel_tcp_segs_in(int fd);

#endif
