^time_bench: [a-z0-9_]+/[a-z0-9_]+(@cpu[0-9]+)? ns=[0-9]+\.[0-9]{3} ns_min=[0-9]+\.[0-9]{3} cycles=([0-9]+\.[0-9]{3}|-) n=[0-9]+ runs=[0-9]+ cpus=[0-9]+ ctx=(process|softirq|user)$
