#!/usr/bin/env python3
"""Put a destination in the sender's TCP metrics cache, so that the route's
initial `ssthresh` reaches the connections that follow.

    route_primer.py serve PORT           on the receiver: accept one
                                         connection, close it, exit (60 s at most)
    route_primer.py connect ADDR PORT    on the sender: open and close one
                                         connection to ADDR (retrying while the
                                         server starts), then wait until
                                         `ip tcp_metrics show ADDR` lists an
                                         ssthresh; exit 1 if it never does

Linux applies a route's ssthresh to a new connection only through that
cache (the window metric, for one, is read from the route itself):
tcp_init_metrics() looks the destination up without creating an entry,
and one is created, the route's metrics and lock bits copied in, when a
connection to it closes (tcp_update_metrics(), on entering TIME-WAIT).
No data is sent: the handshake gives the RTT sample that the kernel
requires before it caches anything, so a lossy or slow path primes as
fast as a clean one.
"""
import socket
import subprocess
import sys
import time


def serve(port):
    srv = socket.create_server(("", port))
    srv.settimeout(60)
    conn, _ = srv.accept()
    conn.settimeout(60)
    conn.recv(1)            # the client's FIN
    conn.close()
    srv.close()


def cached(addr):
    out = subprocess.run(["ip", "tcp_metrics", "show", addr], capture_output=True,
                         text=True).stdout
    return " ssthresh " in f" {out} "


def connect(addr, port, wait_s=30.0):
    end = time.monotonic() + wait_s
    while True:
        try:
            socket.create_connection((addr, port), timeout=10).close()
            break
        except OSError as e:
            if time.monotonic() > end:
                sys.exit(f"route_primer: no connection to {addr}:{port}: {e}")
            time.sleep(0.2)
    # the entry appears when the close completes: one round trip, or more
    # when the path loses the FIN or its ACK
    while not cached(addr):
        if time.monotonic() > end:
            sys.exit(f"route_primer: {addr} is not in the TCP metrics cache "
                     "(tcp_no_metrics_save set, or no route metric to cache?)")
        time.sleep(0.2)


def main(argv):
    if len(argv) == 2 and argv[0] == "serve":
        serve(int(argv[1]))
    elif len(argv) == 3 and argv[0] == "connect":
        connect(argv[1], int(argv[2]))
    else:
        sys.exit(__doc__.split("\n\n")[1])


if __name__ == "__main__":
    main(sys.argv[1:])
