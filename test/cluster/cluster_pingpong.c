/*
 * Copyright (c) 2026 The coll/hier project contributors. All rights reserved.
 * $COPYRIGHT$
 *
 * Additional copyrights may follow
 *
 * $HEADER$
 */
/* cluster_pingpong: ping-pong between ranks 0 and 1 (run_cluster_tests.sh's
 * bandwidth and latency sanity check on the emulated cluster).
 *
 * usage: cluster_pingpong [-n ITERS] [BYTES...]   (default: 1 1048576)
 * First 20 untimed 1-byte round trips (they open the TCP connection), then
 * for each size 2 warm-up round trips and ITERS timed ones (default 10 for
 * 256 KiB and more, 50 below); rank 0 prints one line per size:
 *   cluster_pingpong: bytes B rtt_us T one_way_mbit_s R
 * where R = 2 * B * 8 / T: the rate of one direction, from the round trip.
 */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    int rank, size, a, it;
    long sizes_default[] = {1, 1048576};
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size < 2) {
        if (rank == 0) fprintf(stderr, "cluster_pingpong: needs 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    int first = 1, iters_opt = 0;
    if (argc > 2 && !strcmp(argv[1], "-n")) {
        iters_opt = atoi(argv[2]);
        first = 3;
    }
    char one = 0;
    for (it = 0; it < 20 && rank <= 1; it++) {
        if (rank == 0) {
            MPI_Send(&one, 1, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
            MPI_Recv(&one, 1, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else {
            MPI_Recv(&one, 1, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            MPI_Send(&one, 1, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
        }
    }
    int nsizes = argc > first ? argc - first : 2;
    for (a = 0; a < nsizes; a++) {
        long bytes = argc > first ? atol(argv[first + a]) : sizes_default[a];
        int iters = iters_opt > 0 ? iters_opt : bytes >= 262144 ? 10 : 50, warm = 2;
        char *buf = malloc(bytes > 0 ? bytes : 1);
        memset(buf, rank, bytes > 0 ? bytes : 1);
        double t0 = 0, min_rtt = 1e9;
        if (rank <= 1) {
            for (it = 0; it < warm + iters; it++) {
                if (it == warm) t0 = MPI_Wtime();
                double t_it = MPI_Wtime();
                if (rank == 0) {
                    MPI_Send(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD);
                    MPI_Recv(buf, (int)bytes, MPI_BYTE, 1, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                } else {
                    MPI_Recv(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
                    MPI_Send(buf, (int)bytes, MPI_BYTE, 0, 0, MPI_COMM_WORLD);
                }
                double rtt_it = MPI_Wtime() - t_it;
                if (it >= warm && rtt_it < min_rtt) min_rtt = rtt_it;
            }
        }
        double rtt = (MPI_Wtime() - t0) / iters;
        if (rank == 0)
            printf("cluster_pingpong: bytes %ld rtt_us %.1f one_way_mbit_s %.1f min_rtt_us %.1f\n",
                   bytes, rtt * 1e6, 2.0 * bytes * 8 / rtt / 1e6, min_rtt * 1e6);
        free(buf);
        MPI_Barrier(MPI_COMM_WORLD);
    }
    MPI_Finalize();
    return 0;
}
