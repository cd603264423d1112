# Sourced (not run) by the benches that set nginx beside wirebench on /ping:
# bench-http-server.sh, server-pressure.sh and floor-parts.sh write the same
# configuration through it.
#
#   nginx_ping_conf DIR PORT WORKERS : writes DIR/nginx.conf, which answers
#   GET /ping on 127.0.0.1:PORT with `{"message":"pong"}` (application/json)
#   from WORKERS worker processes (one process, no master, when WORKERS is 1);
#   keep-alive for 1,000,000 requests per connection, 4,096 connections per
#   worker, no access log, listen backlog 511 (nginx's default on Linux);
#   pid, error log and temporary files under DIR. Run it with
#   `nginx -c DIR/nginx.conf -p DIR`.
nginx_ping_conf() {
    local dir=$1 port=$2 workers=$3 master=off
    [ "$workers" -gt 1 ] && master=on
    mkdir -p "$dir"
    cat >"$dir/nginx.conf" <<EOF
daemon off;
master_process $master;
worker_processes $workers;
worker_rlimit_nofile 65536;
pid $dir/nginx.pid;
error_log $dir/error.log warn;
events { worker_connections 4096; }
http {
    access_log off;
    keepalive_requests 1000000;
    keepalive_timeout 75s;
    client_body_temp_path $dir;
    proxy_temp_path $dir;
    fastcgi_temp_path $dir;
    uwsgi_temp_path $dir;
    scgi_temp_path $dir;
    server {
        listen 127.0.0.1:$port backlog=511;
        location /ping { default_type application/json; return 200 '{"message":"pong"}'; }
    }
}
EOF
}
