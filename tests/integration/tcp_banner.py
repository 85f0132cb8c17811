"""A TCP service for specd's tests: on each connection it sends one line
(data that carries ECT back when ECN was negotiated, as a real service's
banner or reply would), then holds the connection until the peer closes.

    python3 tcp_banner.py PORT [PORT ...]
"""
import socket
import sys
import threading


def serve_one(conn):
    with conn:
        try:
            conn.sendall(b"specnet test service\n")
            while conn.recv(4096):
                pass
        except OSError:
            pass


def listen(port):
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", port))
    s.listen(64)
    while True:
        conn, _ = s.accept()
        threading.Thread(target=serve_one, args=(conn,), daemon=True).start()


def main():
    ports = [int(p) for p in sys.argv[1:]] or [5201]
    for p in ports[1:]:
        threading.Thread(target=listen, args=(p,), daemon=True).start()
    listen(ports[0])


if __name__ == "__main__":
    main()
