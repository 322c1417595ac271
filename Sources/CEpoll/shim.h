// epoll for the bots' delay proxy (DelayProxy.swift): Swift's Glibc module leaves it out.
#ifndef QUIZDUEL_CEPOLL_SHIM_H
#define QUIZDUEL_CEPOLL_SHIM_H
#include <sys/epoll.h>
#include <sys/socket.h>
#include <string.h>
#include <time.h>

// epoll_data is a union; reading the fd back out of an event is simpler here.
static inline int quizduel_epoll_fd(const struct epoll_event *event) { return event->data.fd; }
static inline int quizduel_epoll_watch(int epoll, int fd) {
    struct epoll_event event = {0};
    event.events = EPOLLIN;
    event.data.fd = fd;
    return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event);
}
static inline int quizduel_epoll_unwatch(int epoll, int fd) { return epoll_ctl(epoll, EPOLL_CTL_DEL, fd, 0); }

// The kernel stamps each read's data with its arrival (SO_TIMESTAMPNS), so the proxy can hold
// bytes back from when they came rather than from when its busy loop got to them.
static inline int quizduel_stamp_arrivals(int fd) {
    int one = 1;
    return setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &one, sizeof one);
}
// read(2) that also gives the data's arrival on CLOCK_REALTIME in µs (0 when none came).
static inline long quizduel_recv_stamped(int fd, void *buffer, size_t length, long long *arrival_us) {
    char control[CMSG_SPACE(sizeof(struct timespec))];
    struct iovec iov = { buffer, length };
    struct msghdr message;
    memset(&message, 0, sizeof message);
    message.msg_iov = &iov;
    message.msg_iovlen = 1;
    message.msg_control = control;
    message.msg_controllen = sizeof control;
    long count = recvmsg(fd, &message, 0);
    *arrival_us = 0;
    if (count <= 0) return count;
    for (struct cmsghdr *c = CMSG_FIRSTHDR(&message); c != 0; c = CMSG_NXTHDR(&message, c)) {
        if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SO_TIMESTAMPNS) {
            struct timespec stamp;
            memcpy(&stamp, CMSG_DATA(c), sizeof stamp);
            *arrival_us = (long long)stamp.tv_sec * 1000000LL + stamp.tv_nsec / 1000;
        }
    }
    return count;
}
#endif
