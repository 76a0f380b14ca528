/* SPDX-License-Identifier: MIT */
/*
 * The libhsakmt face: opening the "KFD" (the device model), the version, the topology ROCr
 * builds its agents from, clock counters and the small calls (docs/real-stack.md).
 *
 * The GPU presented is gfx90a (ROCr 5.2.3 predates gfx942) with the counts, clocks and ids
 * of the model's MI308X profile; docs/real-stack.md lists every field that differs from
 * what an MI308X's libhsakmt would report.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hsaqm/barrier.h"
#include "log_internal.h"
#include "sim_internal.h"
#include "thunk_internal.h"

struct thunk thunk_g = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* KFD ioctl interface version presented: the model's configured minor (1.x). */
#define THUNK_KFD_MAJOR 1u

/* gfx90a: what ROCr 5.2.3's ISA registry knows (source: ROCr isa.cpp, gfx90a entries). */
#define THUNK_GFX_MAJOR 9u
#define THUNK_GFX_MINOR 0u
#define THUNK_GFX_STEPPING 10u

/* Apertures of a gfx9 process (source: amdkfd kfd_flat_memory.c, LDS at 1 << 48, scratch
 * at 2 << 48); ROCr copies their high halves into amd_queue_t. */
#define THUNK_LDS_APERTURE (1ull << 48)
#define THUNK_SCRATCH_APERTURE (2ull << 48)
#define THUNK_SCRATCH_APERTURE_SIZE (4ull << 30)

/* HSA_CAPABILITY bit of SVMAPISupported (hsakmttypes.h): the model has no SVM ranges. */
#define THUNK_CAP_SVM (1u << 27)

struct hsaqm_sim *thunk_sim(void)
{
	/* Acquire: pairs with the release in hsaKmtOpenKFD, so the model is fully built. */
	return hsaqm_load_acquire(&thunk_g.sim);
}

int thunk_node_dev(uint32_t node)
{
	if (node == THUNK_CPU_NODE || !thunk_sim() || node > thunk_g.ndev)
		return -1;
	return (int)node - 1;
}

/* A property of the device's KFD properties file that struct sim_profile does not keep. */
static uint64_t prop_u64(const struct sim_profile *p, const char *key, uint64_t dflt)
{
	size_t klen = strlen(key);
	const char *s = p->properties_text;

	while (s && *s) {
		if (!strncmp(s, key, klen) && s[klen] == ' ')
			return strtoull(s + klen + 1, NULL, 10);
		s = strchr(s, '\n');
		if (s)
			s++;
	}
	return dflt;
}

static int open_model(struct hsaqm_sim **out)
{
	struct hsaqm_sim_config cfg = { .time_mode = HSAQM_SIM_TIME_REAL };
	const char *s = getenv("HSAQM_THUNK_DEVICES");

	if (s && *s) {
		unsigned long n = strtoul(s, NULL, 10);

		if (n < 1 || n > HSAQM_SIM_MAX_DEVICES)
			return -EINVAL;
		cfg.num_devices = (unsigned int)n;
	}
	cfg.trace_path = getenv("HSAQM_THUNK_TRACE");
	if (cfg.trace_path && !*cfg.trace_path)
		cfg.trace_path = NULL;
	/* $HSAQM_SIM_DEVICE set: a client of the shared device process (hsaqm-simd). */
	return hsaqm_sim_open_env(&cfg, out);
}

/* Model memory size: what sim/arena.c reserves (HSAQM_SIM_ARENA_MB, default 4096). */
static uint64_t model_mem_size(void)
{
	const char *s = getenv("HSAQM_SIM_ARENA_MB");
	unsigned long mb = s && *s ? strtoul(s, NULL, 10) : 0;

	if (mb < 16 || mb > (1ul << 20))
		mb = 4096;
	return (uint64_t)mb << 20;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtOpenKFD(void)
{
	HSAKMT_STATUS ret = HSAKMT_STATUS_SUCCESS;

	pthread_mutex_lock(&thunk_g.lock);
	if (thunk_g.open_count == 0) {
		struct hsaqm_sim *sim = NULL;
		int err = open_model(&sim);
		const char *s;

		if (err) {
			hsaqm_log_err("thunk: cannot open the device model: %s", strerror(-err));
			ret = HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
			goto out;
		}
		thunk_g.ndev = sim_device_count(sim);
		/* What hsaqm_sim_open_env() chose: the model's callbacks do not cross processes. */
		s = getenv("HSAQM_SIM_DEVICE");
		thunk_g.shared = s && *s;
		thunk_g.mem_size = model_mem_size();
		/* libhsakmt's open("/dev/kfd"): the model's KFD face, where the queues will live. */
		err = thunk_kfd_open(sim);
		if (err) {
			hsaqm_log_err("thunk: cannot open the model's KFD: %s", strerror(-err));
			hsaqm_sim_destroy(sim);
			ret = HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
			goto out;
		}
		/* Release: the model is complete before another thread can see it. */
		hsaqm_store_release(&thunk_g.sim, sim);
	}
	thunk_g.open_count++;
out:
	pthread_mutex_unlock(&thunk_g.lock);
	return ret;
}

/*
 * HIP's runtime never calls hsa_shut_down, so the last CloseKFD never comes: write the report
 * at process exit instead. Only the report: ROCr's threads may still run, so nothing is torn
 * down here (the process is ending; the KFD would clean up after it).
 */
static void __attribute__((destructor)) thunk_exit(void)
{
	pthread_mutex_lock(&thunk_g.lock);
	if (thunk_g.open_count) {
		thunk_sdma_report();
		thunk_kernel_report();
	}
	pthread_mutex_unlock(&thunk_g.lock);
}

HSAKMT_STATUS HSAKMTAPI hsaKmtCloseKFD(void)
{
	HSAKMT_STATUS ret = HSAKMT_STATUS_SUCCESS;

	pthread_mutex_lock(&thunk_g.lock);
	if (thunk_g.open_count == 0) {
		ret = HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
	} else if (--thunk_g.open_count == 0) {
		struct hsaqm_sim *sim = thunk_g.sim;

		/* Process exit as the KFD sees it: queues, events, memory, in that order. */
		thunk_queue_fini();
		thunk_kfd_close(); /* the KFD process ends with its last handle */
		thunk_kernel_report();
		thunk_event_fini();
		thunk_mem_fini();
		thunk_kernel_fini();
		hsaqm_store_release(&thunk_g.sim, NULL);
		hsaqm_sim_destroy(sim);
	}
	pthread_mutex_unlock(&thunk_g.lock);
	return ret;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetVersion(HsaVersionInfo *v)
{
	struct hsaqm_sim *sim = thunk_sim();

	if (!v)
		return HSAKMT_STATUS_INVALID_PARAMETER;
	if (!sim)
		return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
	v->KernelInterfaceMajorVersion = THUNK_KFD_MAJOR;
	v->KernelInterfaceMinorVersion = sim_config(sim)->kfd_minor_version;
	return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtAcquireSystemProperties(HsaSystemProperties *p)
{
	if (!p)
		return HSAKMT_STATUS_INVALID_PARAMETER;
	if (!thunk_sim())
		return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
	memset(p, 0, sizeof(*p));
	p->NumNodes = 1 + thunk_g.ndev;
	return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtReleaseSystemProperties(void)
{
	return HSAKMT_STATUS_SUCCESS;
}

static void set_name16(HSAuint16 *dst, const char *src)
{
	unsigned int i;

	for (i = 0; i + 1 < HSA_PUBLIC_NAME_SIZE && src[i]; i++)
		dst[i] = (unsigned char)src[i];
	dst[i] = 0;
}

/* The host CPU's name from /proc/cpuinfo, as libhsakmt reports it for the CPU node. */
static void cpu_model_name(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(buf, len, "host CPU");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (strncmp(line, "model name", 10) || !colon)
			continue;
		colon++;
		while (*colon == ' ')
			colon++;
		colon[strcspn(colon, "\n")] = 0;
		snprintf(buf, len, "%s", colon);
		break;
	}
	fclose(f);
}

static void cpu_node(HsaNodeProperties *p)
{
	char name[HSA_PUBLIC_NAME_SIZE];
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	p->NumCPUCores = n > 0 ? (HSAuint32)n : 1;
	p->NumMemoryBanks = 1;
	p->NumCaches = 1;
	p->NumIOLinks = thunk_g.ndev;
	p->MaxEngineClockMhzCCompute = 3800; /* captured: node2.properties max_engine_clk_ccompute */
	p->DrmRenderMinor = -1;
	cpu_model_name(name, sizeof(name));
	set_name16(p->MarketingName, name);
	snprintf((char *)p->AMDName, sizeof(p->AMDName), "CPU");
}

static void gpu_node(unsigned int dev, HsaNodeProperties *p)
{
	const struct sim_profile *pr = sim_device_profile(thunk_sim(), dev);

	p->NumFComputeCores = pr->cu_count * pr->simd_per_cu;
	p->NumMemoryBanks = 3; /* frame buffer + the LDS and scratch apertures, as libhsakmt adds */
	p->NumCaches = 2;
	p->NumIOLinks = 1;
	p->FComputeIdLo = (HSAuint32)prop_u64(pr, "simd_id_base", 0x80001000u) + dev * 0x1000u;
	/* DoorbellType 2 (64-bit AQL doorbells) is in the capture; SVM ranges are not modelled. */
	p->Capability.Value = (HSAuint32)pr->capability & ~THUNK_CAP_SVM;
	p->Capability.ui32.DoorbellType = 2;
	p->MaxWavesPerSIMD = pr->max_waves_per_simd;
	p->LDSSizeInKB = pr->lds_size_kb;
	p->GDSSizeInKB = (HSAuint32)prop_u64(pr, "gds_size_in_kb", 0);
	p->WaveFrontSize = pr->wave_front_size;
	/* KFD: array_count SIMD arrays in all, simd_arrays_per_engine per shader engine */
	p->NumArrays = (HSAuint32)prop_u64(pr, "simd_arrays_per_engine", 1);
	p->NumShaderBanks = (HSAuint32)prop_u64(pr, "array_count", 1) / (p->NumArrays ? p->NumArrays : 1);
	p->NumCUPerArray = (HSAuint32)prop_u64(pr, "cu_per_simd_array", 1);
	p->NumSIMDPerCU = pr->simd_per_cu;
	p->MaxSlotsScratchCU = (HSAuint32)prop_u64(pr, "max_slots_scratch_cu", 32);
	p->EngineId.ui32.uCode = pr->fw_version & 0x3ff;
	p->EngineId.ui32.Major = THUNK_GFX_MAJOR;
	p->EngineId.ui32.Minor = THUNK_GFX_MINOR;
	p->EngineId.ui32.Stepping = THUNK_GFX_STEPPING;
	p->VendorId = (HSAuint16)pr->vendor_id;
	p->DeviceId = (HSAuint16)pr->device_id;
	p->LocationId = (HSAuint32)prop_u64(pr, "location_id", 0) + dev * 0x100u;
	p->LocalMemSize = thunk_g.mem_size;
	p->MaxEngineClockMhzFCompute = pr->max_engine_clk_mhz;
	p->MaxEngineClockMhzCCompute = (HSAuint32)prop_u64(pr, "max_engine_clk_ccompute", 0);
	p->DrmRenderMinor = (HSAint32)(pr->drm_render_minor + dev);
	set_name16(p->MarketingName, "AMD Instinct MI308X (hsaqm model, gfx90a face)");
	snprintf((char *)p->AMDName, sizeof(p->AMDName), "GFX90A");
	p->uCodeEngineVersions.uCodeSDMA = (unsigned int)prop_u64(pr, "sdma_fw_version", 0) & 0x3ff;
	p->DebugProperties.Value = pr->debug_prop;
	p->HiveID = 0;               /* one model device is no xGMI hive */
	p->NumSdmaEngines = pr->num_sdma_engines;
	p->NumSdmaXgmiEngines = 0;   /* no peers: ROCr would only use them for xGMI copies */
	p->NumSdmaQueuesPerEngine = (HSAuint8)pr->num_sdma_queues_per_engine;
	p->NumCpQueues = (HSAuint8)pr->num_cp_queues;
	p->NumGws = 0;               /* GWS is not modelled: no cooperative queues */
	p->Domain = (HSAuint32)prop_u64(pr, "domain", 0);
	p->UniqueID = pr->unique_id + dev;
	p->VGPRSizePerCU = 512 * 1024; /* gfx90a: 512 KiB of VGPR + AGPR per CU */
	p->SGPRSizePerCU = 16 * 1024;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeProperties(HSAuint32 node, HsaNodeProperties *p)
{
	if (!p)
		return HSAKMT_STATUS_INVALID_PARAMETER;
	if (!thunk_sim())
		return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
	if (node > thunk_g.ndev)
		return HSAKMT_STATUS_INVALID_NODE_UNIT;
	memset(p, 0, sizeof(*p));
	if (node == THUNK_CPU_NODE)
		cpu_node(p);
	else
		gpu_node(node - 1, p);
	return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeMemoryProperties(HSAuint32 node, HSAuint32 n,
						      HsaMemoryProperties *m)
{
	if (!m && n)
		return HSAKMT_STATUS_INVALID_PARAMETER;
	if (!thunk_sim())
		return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
	if (node > thunk_g.ndev)
		return HSAKMT_STATUS_INVALID_NODE_UNIT;
	memset(m, 0, sizeof(*m) * n);
	if (node == THUNK_CPU_NODE) {
		if (n >= 1) {
			m[0].HeapType = HSA_HEAPTYPE_SYSTEM;
			m[0].SizeInBytes = thunk_g.mem_size;
		}
		return HSAKMT_STATUS_SUCCESS;
	}
	const HsaMemoryProperties banks[3] = {
		/* HBM3, 8 stacks x 1024 bits (MI308X); clock: assumption */
		{ .HeapType = HSA_HEAPTYPE_FRAME_BUFFER_PUBLIC, .SizeInBytes = thunk_g.mem_size,
		  .Width = 8192, .MemoryClockMax = 1300 },
		{ .HeapType = HSA_HEAPTYPE_GPU_LDS, .SizeInBytes = 64 * 1024,
		  .VirtualBaseAddress = THUNK_LDS_APERTURE },
		{ .HeapType = HSA_HEAPTYPE_GPU_SCRATCH, .SizeInBytes = THUNK_SCRATCH_APERTURE_SIZE,
		  .VirtualBaseAddress = THUNK_SCRATCH_APERTURE },
	};
	for (unsigned int i = 0; i < n && i < 3; i++)
		m[i] = banks[i];
	return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeCacheProperties(HSAuint32 node, HSAuint32 proc, HSAuint32 n,
						     HsaCacheProperties *c)
{
	if (!c && n)
		return HSAKMT_STATUS_INVALID_PARAMETER;
	if (!thunk_sim())
		return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
	if (node > thunk_g.ndev)
		return HSAKMT_STATUS_INVALID_NODE_UNIT;
	memset(c, 0, sizeof(*c) * n);
	for (unsigned int i = 0; i < n; i++) {
		c[i].ProcessorIdLow = proc;
		c[i].CacheLineSize = node == THUNK_CPU_NODE ? 64 : 128;
		c[i].CacheType.ui32.Data = 1;
		if (node == THUNK_CPU_NODE) {
			c[i].CacheType.ui32.CPU = 1;
			c[i].CacheLevel = 1;
			c[i].CacheSize = 32; /* KiB; caches are not modelled */
			continue;
		}
		c[i].CacheType.ui32.HSACU = 1;
		c[i].CacheLevel = i + 1;
		/* KiB; assumption, as the HSA face reports (caches are not modelled) */
		c[i].CacheSize = i == 0 ? 32 : 4096;
	}
	return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetNodeIoLinkProperties(HSAuint32 node, HSAuint32 n,
						      HsaIoLinkProperties *l)
{
	if (!l && n)
		return HSAKMT_STATUS_INVALID_PARAMETER;
	if (!thunk_sim())
		return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
	if (node > thunk_g.ndev)
		return HSAKMT_STATUS_INVALID_NODE_UNIT;
	memset(l, 0, sizeof(*l) * n);
	for (unsigned int i = 0; i < n; i++) {
		if (node == THUNK_CPU_NODE && i >= thunk_g.ndev)
			break;
		if (node != THUNK_CPU_NODE && i >= 1)
			break;
		/* PCIe 5 x16 between the host and each GPU (assumption: copies are not timed) */
		l[i].IoLinkType = HSA_IOLINKTYPE_PCIEXPRESS;
		l[i].NodeFrom = node;
		l[i].NodeTo = node == THUNK_CPU_NODE ? 1 + i : THUNK_CPU_NODE;
		l[i].Weight = 20;
		l[i].MinimumBandwidth = 64000;
		l[i].MaximumBandwidth = 64000;
	}
	return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtGetClockCounters(HSAuint32 node, HsaClockCounters *c)
{
	struct hsaqm_sim *sim = thunk_sim();

	if (!c)
		return HSAKMT_STATUS_INVALID_PARAMETER;
	if (!sim)
		return HSAKMT_STATUS_KERNEL_IO_CHANNEL_NOT_OPENED;
	if (node > thunk_g.ndev)
		return HSAKMT_STATUS_INVALID_NODE_UNIT;
	/*
	 * One clock domain: model nanoseconds. The GPU counter ticks at 1 GHz too (a gfx90a's
	 * ticks at 100 MHz), so ROCr's GPU-to-system conversion of the start/end timestamps
	 * the face writes into completion signals is the identity.
	 */
	uint64_t now = hsaqm_sim_now_ns(sim);

	c->GPUClockCounter = now;
	c->CPUClockCounter = now;
	c->SystemClockCounter = now;
	c->SystemClockFrequencyHz = 1000000000ull;
	return HSAKMT_STATUS_SUCCESS;
}

/*
 * Runtime enable (KFD 1.13+, the debugger interface): not modelled. NOT_SUPPORTED is what an
 * older KFD answers, and ROCr then uses its pre-exception-debugging queue error path.
 */
HSAKMT_STATUS HSAKMTAPI hsaKmtGetXNACKMode(HSAint32 *enable)
{
	if (!enable)
		return HSAKMT_STATUS_INVALID_PARAMETER;
	*enable = 0; /* page faults and XNACK are not modelled */
	return HSAKMT_STATUS_SUCCESS;
}

HSAKMT_STATUS HSAKMTAPI hsaKmtSetXNACKMode(HSAint32 enable)
{
	return enable ? HSAKMT_STATUS_NOT_SUPPORTED : HSAKMT_STATUS_SUCCESS;
}

/* The trap handler's code is accepted and never runs: waves do not execute instructions. */
HSAKMT_STATUS HSAKMTAPI hsaKmtSetTrapHandler(HSAuint32 node, void *base, HSAuint64 size,
					     void *buf, HSAuint64 buf_size)
{
	if (thunk_node_dev(node) < 0)
		return HSAKMT_STATUS_INVALID_NODE_UNIT;
	return HSAKMT_STATUS_SUCCESS;
}

/*
 * Only ROCr's image extension asks, and it asserts success (ImageManagerKv::Initialize, which
 * HIP's runtime reaches at start-up). Images are not modelled: the answer is a gfx9 address
 * configuration with no tile-mode tables (gfx9 has none: tiling there is swizzle modes).
 * The GB_ADDR_CONFIG value is an assumption (a gfx9-family golden value); nothing here reads
 * image memory.
 */
#define THUNK_GB_ADDR_CONFIG 0x22014042u

HSAKMT_STATUS HSAKMTAPI hsaKmtGetTileConfig(HSAuint32 node, HsaGpuTileConfig *config)
{
	if (!config)
		return HSAKMT_STATUS_INVALID_PARAMETER;
	if (thunk_node_dev(node) < 0)
		return HSAKMT_STATUS_INVALID_NODE_UNIT;
	config->NumTileConfigs = 0;
	config->NumMacroTileConfigs = 0;
	config->GbAddrConfig = THUNK_GB_ADDR_CONFIG;
	config->NumBanks = 0;
	config->NumRanks = 0;
	return HSAKMT_STATUS_SUCCESS;
}
