/* SPDX-License-Identifier: MIT */
/*
 * hsaqm-tool/record_format.h - the on-disk format of a recording (HSAQM_RECORD, hsaqm-run --record),
 * shared by the writer (tool_record.c), the reader (tools/record/) and the tests.
 * docs/replay.md, "Recording", is the reference; this header is its code.
 *
 * A file is one header (HSAQM_REC_HEADER_SIZE bytes, its own CRC at the end) and then blocks.
 * A block is a block header and nrec fixed-size records; its CRC covers the block header's
 * first fields and every record byte. The writer appends whole blocks with one write() each,
 * so a process killed at any moment leaves a file whose blocks are whole up to the last
 * write that completed; a reader stops at the first block that is short or does not check
 * (a "torn" tail), and everything before it is what the process had flushed.
 *
 * Little-endian, fixed widths, no pointers: the file is read on the machine that wrote it
 * or any other x86-64/aarch64 host.
 */
#ifndef HSAQM_RECORD_FORMAT_H
#define HSAQM_RECORD_FORMAT_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#define HSAQM_REC_MAGIC "HSAQMREC" /* 8 bytes, no terminator in the file */
/*
 * 2: TIMES and CLOCK records added (version 1 files are read the same way: they have none).
 * 3: KERNEL records added (versions 1 and 2 are read the same way: their dispatches have no
 * names). 4: the UNTIMED record added (older versions are read the same way: they do not say
 * which dispatches went untimed). 5: per-kernel times (HSAQM_REC_PACKET_OWN_SIGNAL on PACKET
 * records, the UNTIMED record's `unsignalled`; older versions are read the same way: their
 * unsignalled dispatches have no times). Readers accept every version up to theirs; a change
 * to an existing record's layout would need a version they refuse.
 */
#define HSAQM_REC_VERSION 5u
#define HSAQM_REC_HEADER_SIZE 256u
#define HSAQM_REC_BLOCK_MAGIC 0x42525148u /* "HQRB" little-endian */
#define HSAQM_REC_RECORD_SIZE 96u

/* What a record says (struct hsaqm_rec_record.kind). */
enum hsaqm_rec_kind {
	HSAQM_REC_QUEUE = 1,  /* a proxy queue was made: body is struct hsaqm_rec_queue_body */
	HSAQM_REC_PACKET = 2, /* one AQL packet the doorbell scan saw: body is the packet */
	HSAQM_REC_LOST = 3,   /* aux packets of this queue were not recorded (see docs) */
	HSAQM_REC_QUEUE_GONE = 4, /* the application destroyed the queue */
	HSAQM_REC_LIMIT = 5,  /* HSAQM_RECORD_MAX_MB reached: nothing follows */
	HSAQM_REC_TIMES = 6,  /* a recorded dispatch's start and end: body is times_body */
	HSAQM_REC_CLOCK = 7,  /* the profiling clock against t_ns: body is clock_body */
	HSAQM_REC_KERNEL = 8, /* a piece of a kernel object's name (see below) */
	HSAQM_REC_UNTIMED = 9, /* at close: signalled dispatches without times: untimed_body */
};

/*
 * HSAQM_REC_KERNEL: the name of the kernel object `index` (the code object's kernel symbol,
 * without its ".kd"), learnt when its executable was frozen (t_ns). `aux` is the name's
 * length in bytes (at most HSAQM_REC_KERNEL_NAME_MAX: a longer name is cut there), `priority`
 * the offset of this piece in it (0, 64, 128...), the body up to 64 bytes of it from there
 * (zero-padded, no terminator when full); `queue` 0. The pieces of one name are consecutive
 * records with one t_ns. A kernel object named again later (an executable destroyed and
 * another loaded at its address) takes the later name from then on.
 */
#define HSAQM_REC_KERNEL_NAME_MAX 1024u
#define HSAQM_REC_KERNEL_PIECE 64u

/*
 * HSAQM_REC_PACKET: aux is 0, or this bit and an index below it: the application's kernel
 * dispatch had no completion signal and the recorder gave it one of its own for its times (a
 * recording at level 0, docs/replay.md "Per-kernel times"). The body is the packet as the
 * application wrote it (completion_signal 0); its TIMES record names the recorder's signal.
 */
#define HSAQM_REC_PACKET_OWN_SIGNAL 0x80000000u

/* The file header. crc is the CRC-32 of the bytes before it. */
struct hsaqm_rec_file_header {
	char magic[8];            /* HSAQM_REC_MAGIC */
	uint32_t version;         /* HSAQM_REC_VERSION */
	uint32_t header_size;     /* HSAQM_REC_HEADER_SIZE */
	uint32_t record_size;     /* HSAQM_REC_RECORD_SIZE */
	uint32_t pid;
	uint64_t start_mono_ns;   /* CLOCK_MONOTONIC when recording started: the records' clock */
	uint64_t start_real_ns;   /* CLOCK_REALTIME at the same moment (for people, not merging) */
	uint32_t clock_id;        /* 1 = CLOCK_MONOTONIC */
	int32_t priority;         /* the process priority (HSAQM_PRIORITY) at start */
	uint32_t level;           /* the level every queue asked for (enum hsaqm_level) */
	uint32_t max_mb;          /* HSAQM_RECORD_MAX_MB */
	char boot_id[40];         /* /proc/sys/kernel/random/boot_id: one boot = one clock */
	char comm[64];            /* the program (/proc/self/comm) */
	char hostname[64];
	uint8_t reserved[HSAQM_REC_HEADER_SIZE - 4 - 8 - 5 * 4 - 2 * 8 - 3 * 4 - 40 - 64 - 64];
	uint32_t crc;
};

/* A block header; nrec records of record_size bytes follow it. */
struct hsaqm_rec_block {
	uint32_t magic;   /* HSAQM_REC_BLOCK_MAGIC */
	uint32_t nrec;
	uint64_t seq;     /* 0, 1, 2... in file order */
	uint32_t bytes;   /* nrec * record_size: the length the CRC covers after the header */
	uint32_t crc;     /* CRC-32 of magic..bytes and the records */
};

/* The body of a HSAQM_REC_QUEUE record. */
struct hsaqm_rec_queue_body {
	uint32_t size;       /* packets */
	uint32_t device;     /* KFD node id */
	uint64_t hsa_queue;  /* the HSA queue id the application holds */
	char name[32];       /* lib's name (gpuN-qM, as the stats say) */
	uint32_t level;      /* the level it asked for */
	uint32_t reserved[3];
};

/*
 * The body of a HSAQM_REC_TIMES record (index: the packet's index in its queue; t_ns: when the
 * writer saw it complete). start and end are hsa_amd_profiling_get_dispatch_time's, in the
 * runtime's system timestamp domain (ns on ROCr; model ns on the model): HSAQM_REC_CLOCK
 * records relate that domain to t_ns.
 */
struct hsaqm_rec_times_body {
	uint64_t start;
	uint64_t end;
	uint64_t signal;     /* the completion signal it was read from */
	uint64_t reserved[5];
};

/*
 * The body of a HSAQM_REC_CLOCK record: hsa_system_get_info(TIMESTAMP) read between two
 * CLOCK_MONOTONIC reads whose middle is the record's t_ns.
 */
struct hsaqm_rec_clock_body {
	uint64_t system_ts;  /* ticks of the runtime's system timestamp */
	uint64_t system_hz;  /* its frequency */
	uint64_t read_ns;    /* the two monotonic reads' distance: the pair's uncertainty */
	uint64_t reserved[5];
};

/*
 * The body of a HSAQM_REC_UNTIMED record, written once when the recording closes (queue 0, aux
 * the same as waiting, at most UINT32_MAX): the signalled kernel dispatches and barriers whose
 * times the file does not have. A file without one was not closed (SIGKILL, a crash) or
 * stopped at its limit.
 */
struct hsaqm_rec_untimed_body {
	uint64_t waiting;    /* their signal was not yet at 0 when the recording closed */
	uint64_t reused;     /* given up: the application reused the signal before it was seen at 0 */
	uint64_t full;       /* not waited for: REC_PEND dispatches were waiting already */
	uint64_t destroyed;  /* the application destroyed their signal before it was seen at 0 */
	/*
	 * Version 5: kernel dispatches without a completion signal that the recorder could not
	 * give one of its own (its signals of that queue all waiting for their dispatches' end).
	 */
	uint64_t unsignalled;
	uint64_t reserved[3];
};

/*
 * One record. t_ns: CLOCK_MONOTONIC (a packet: the doorbell scan that saw it). queue: lib's
 * id of the queue within the process (from 1; the stats name it gpuN-qM). priority: the
 * queue's xqueue priority then; hsa_prio: the HIP stream priority (0 low, 1 normal, 2 high).
 */
struct hsaqm_rec_record {
	uint64_t t_ns;
	uint64_t index;      /* PACKET: its index in the queue; QUEUE: the HSA queue id */
	uint16_t kind;       /* enum hsaqm_rec_kind */
	uint16_t hsa_prio;
	uint32_t queue;
	int32_t priority;
	uint32_t aux;        /* LOST: how many; QUEUE: the device; LIMIT: the limit in MB;
			      * PACKET: HSAQM_REC_PACKET_OWN_SIGNAL | its index, or 0 */
	uint8_t body[64];    /* PACKET: the AQL packet as the scan read it; QUEUE: queue_body */
};

static_assert(sizeof(struct hsaqm_rec_file_header) == HSAQM_REC_HEADER_SIZE, "header size");
static_assert(sizeof(struct hsaqm_rec_record) == HSAQM_REC_RECORD_SIZE, "record size");
static_assert(sizeof(struct hsaqm_rec_block) == 24, "block header size");
static_assert(sizeof(struct hsaqm_rec_queue_body) <= 64, "queue body fits a record");
static_assert(sizeof(struct hsaqm_rec_times_body) == 64, "times body fills a record");
static_assert(sizeof(struct hsaqm_rec_clock_body) == 64, "clock body fills a record");

/*
 * CRC-32 (IEEE 802.3, reflected, polynomial 0xEDB88320) of @len bytes, continuing @crc (0 to
 * start). Byte at a time with a nibble table: the writer runs it once per block on its own
 * thread, never on the doorbell path.
 */
static inline uint32_t hsaqm_rec_crc32(uint32_t crc, const void *data, size_t len)
{
	static const uint32_t nib[16] = {
		0x00000000u, 0x1db71064u, 0x3b6e20c8u, 0x26d930acu, 0x76dc4190u, 0x6b6b51f4u,
		0x4db26158u, 0x5005713cu, 0xedb88320u, 0xf00f9344u, 0xd6d6a3e8u, 0xcb61b38cu,
		0x9b64c2b0u, 0x86d3d2d4u, 0xa00ae278u, 0xbdbdf21cu,
	};
	const uint8_t *p = data;

	crc = ~crc;
	for (size_t i = 0; i < len; i++) {
		crc ^= p[i];
		crc = (crc >> 4) ^ nib[crc & 15];
		crc = (crc >> 4) ^ nib[crc & 15];
	}
	return ~crc;
}

/* The CRC a block header carries: over its fields before crc, then the records. */
static inline uint32_t hsaqm_rec_block_crc(const struct hsaqm_rec_block *b, const void *recs)
{
	uint32_t c = hsaqm_rec_crc32(0, b, offsetof(struct hsaqm_rec_block, crc));

	return hsaqm_rec_crc32(c, recs, b->bytes);
}

#endif /* HSAQM_RECORD_FORMAT_H */
