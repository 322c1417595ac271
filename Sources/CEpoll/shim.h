// epoll for the bots' delay proxy (DelayProxy.swift): Swift's Glibc module leaves it out.
#ifndef QUIZDUEL_CEPOLL_SHIM_H
#define QUIZDUEL_CEPOLL_SHIM_H
#include <sys/epoll.h>

// epoll_data is a union; reading the fd back out of an event is simpler here.
static inline int quizduel_epoll_fd(const struct epoll_event *event) { return event->data.fd; }
static inline int quizduel_epoll_watch(int epoll, int fd) {
    struct epoll_event event = {0};
    event.events = EPOLLIN;
    event.data.fd = fd;
    return epoll_ctl(epoll, EPOLL_CTL_ADD, fd, &event);
}
static inline int quizduel_epoll_unwatch(int epoll, int fd) { return epoll_ctl(epoll, EPOLL_CTL_DEL, fd, 0); }
#endif
