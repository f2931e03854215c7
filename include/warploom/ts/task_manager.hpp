// warploom/ts/task_manager.hpp
//
// ts::TaskManager verifies a kernel's tasks and lowers them to one warp-uniform branch per task.
// Its lifecycle is the seed's, fixed by types so it cannot be reordered:
//
//   using Manager = ts::TaskManager<ts::Tasks<LoadTask, StoreTask>,
//                                   ts::Graph<ts::DependsOn<SmemTiles, InputGmem>,
//                                             ts::DependsOn<OutputGmem, SmemTiles>>>;
//
//   __global__ void __launch_bounds__(Manager::num_threads, 1) kernel(...) {
//     extern __shared__ alignas(128) char smem[];
//     InputGmem in{...};  SmemTiles tiles{};  OutputGmem out{...};    // 1. resources
//     Manager tm(smem, in, tiles, out);                  // 2-5. graph, schedules, tasks: verified
//     auto initialized = tm.setup_resources_and_tasks(); // 6. bind buffers, init barriers
//     auto ready = initialized.fence_and_sync_cta();     // 7. fence.mbarrier_init + CTA barrier
//     ready.run();                                       // 8. each warp runs its task
//   }
//
// Verification happens before anything runs: at compile time (setup_resources_and_tasks
// static_asserts the structural checks, naming the violated rule — or, for a schedule shared by
// many instances, its schedule unit does, once: schedule_unit.hpp), on the host through
// Manager::verify() / ts::launch, and from the CLI.
//
// Lowering: warps are split into register regions (warpgroups joined by tasks that span them);
// each region is one branch that executes its one setmaxnreg (the instruction is warpgroup-wide:
// every warp of a group must execute the same one) and then the chain of its tasks' branches.
// A warp no task owns (warps 5-7 above, next to the load on warp 4 at 40 registers) executes its
// region's setmaxnreg, matches no task and exits: that is the padding the kernel never writes,
// and which the model shows as derived padding tasks (ts::derive_padding, model.hpp).
// A task branch builds the task's handles (its private pipeline cursors), runs the schedule and
// drains the pipelines it produced (producer tail). No run-time dispatch exists: the branches
// compare the warp index against constants.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>
#include <utility>

#include "warploom/config.hpp"
// A translation unit whose managers are all verified in their schedule units (the GEMM and
// attention instances, the JIT's sources) defines WARPLOOM_TS_VERIFIED_IN_SCHEDULE_UNITS before
// including TS: the verifier (some 4,000 lines of constexpr C++, about 3 s of every compile pass)
// is then not parsed there, and a manager that asks for its check in the kernel unit is refused.
#if !defined(WARPLOOM_TS_VERIFIED_IN_SCHEDULE_UNITS)
#include "warploom/ts/compile_time_check.hpp"
#endif
#include "warploom/ts/describe.hpp"
#include "warploom/ts/manager_traits.hpp"
#include "warploom/ts/smem_layout.hpp"
#include "warploom/ts/verifier.hpp"

#if defined(__CUDACC__)
#include <cuda/std/tuple>

#include "warploom/arch/sm90/cluster.hpp"
#include "warploom/arch/sm90/mbarrier.hpp"
#include "warploom/arch/sm90/setmaxnreg.hpp"
#include "warploom/arch/sm90/warp.hpp"
#include "warploom/ts/device/context.hpp"
#include "warploom/ts/device/group_handle.hpp"
#endif

namespace warploom::ts {

namespace detail {

// Warps [lo, hi) that execute one setmaxnreg (`budget` registers, 0: none).
struct RegisterRegion {
  int lo = 0, hi = 0, budget = 0;
};

template <class... Ts>
constexpr int task_warp_end(list<Ts...>) {
  int end = 0;
  ((end = end > Ts::spec.warp_idx + Ts::spec.num_warps ? end
                                                       : Ts::spec.warp_idx + Ts::spec.num_warps),
   ...);
  return end;
}

struct RegisterRegions {
  std::array<RegisterRegion, kMaxWarpsPerBlock / kWarpsPerWarpgroup> regions{};
  int count = 0;
};

template <class... Ts>
constexpr RegisterRegions register_regions(list<Ts...>, int num_warps) {
  constexpr TaskSpec specs[] = {Ts::spec..., TaskSpec{}};
  RegisterRegions out;
  int groups = (num_warps + kWarpsPerWarpgroup - 1) / kWarpsPerWarpgroup;
  int lo = 0;
  for (int g = 0; g < groups; ++g) {
    int boundary = (g + 1) * kWarpsPerWarpgroup;
    bool straddled = false;
    for (std::size_t i = 0; i < sizeof...(Ts); ++i)
      if (specs[i].warp_idx < boundary && specs[i].warp_idx + specs[i].num_warps > boundary)
        straddled = true;
    if (straddled && g + 1 < groups) continue;
    int hi = boundary;
    int budget = 0;
    for (std::size_t i = 0; i < sizeof...(Ts); ++i)
      if (specs[i].warp_idx >= lo && specs[i].warp_idx < hi && specs[i].num_registers != 0)
        budget = specs[i].num_registers;
    out.regions[out.count++] = {lo, hi, budget};
    lo = hi;
  }
  return out;
}

#if defined(__CUDACC__)
template <class L>
struct pointer_tuple;
template <class... Rs>
struct pointer_tuple<list<Rs...>> {
  using type = cuda::std::tuple<Rs*...>;
};
#endif

}  // namespace detail

template <class TaskList, class GraphT, ManagerOptions kOptions = ManagerOptions{},
          class AliasList = Aliases<>>
class TaskManager {
 public:
  using traits = ManagerTraits<TaskList, GraphT, kOptions, AliasList>;
  using resources = typename traits::resources;
  using tasks = typename traits::tasks;
  static constexpr ManagerOptions options = kOptions;

  // Launch configuration: the block is every task's warps, rounded up to whole warpgroups.
  static constexpr int num_warps = kOptions.block_warps > 0
                                       ? kOptions.block_warps
                                       : (detail::task_warp_end(tasks{}) + kWarpsPerWarpgroup - 1) /
                                             kWarpsPerWarpgroup* kWarpsPerWarpgroup;
  static constexpr int num_threads = num_warps * kThreadsPerWarp;
  // Registers per thread at kernel entry under __launch_bounds__(num_threads, 1).
  static constexpr int kEntryRegisters = entry_registers(num_warps);

  static constexpr SmemLayout smem_layout() {
    ManagerModel m;
    describe_resources<traits>(m);
    return layout_smem(m);
  }
  static constexpr long long smem_bytes = smem_layout().total_bytes;

  static constexpr int smem_alignment = smem_layout().base_alignment;

  // CTAs per cluster: the widest multicast of any pipeline (1 without multicast). ts::launch
  // launches clusters of this size along x.
  static constexpr int cluster_size = []<class... Rs>(list<Rs...>) {
    return std::max({1, Rs::spec.pipeline.multicast_ctas...});
  }(resources{});

  // ---- Host: description and verification ---------------------------------------------------
  static ManagerModel model(std::string_view name = "task_manager") {
    return describe<traits>(name);
  }
  static Report verify(std::string_view name = "task_manager") { return verify_model(model(name)); }

#if defined(__CUDACC__)
  // ---- Device: lowering ------------------------------------------------------------------------
  class Ready {
   public:
    // Each warp runs the schedule of the task that owns it.
    WL_DEVICE void run() { tm_->run_tasks(); }

   private:
    friend class TaskManager;
    WL_DEVICE explicit Ready(TaskManager& tm) : tm_(&tm) {}
    TaskManager* tm_;
  };

  class Initialized {
   public:
    // fence.mbarrier_init, then a CTA-wide barrier: every thread sees initialised barriers.
    // With multicast pipelines the barrier spans the cluster: a peer CTA's TMA and consumers
    // arrive on this CTA's barriers, so they must see them initialised too. A TaskManager without
    // pipelines has no barriers, so there is nothing to fence or wait for.
    WL_DEVICE Ready fence_and_sync_cta() {
      if constexpr (cluster_size > 1) {
        sm90::fence_mbarrier_init();
        sm90::cluster_sync();
      } else if constexpr (kHasBarriers) {
        sm90::fence_mbarrier_init();
        __syncthreads();
      }
      return Ready(*tm_);
    }

   private:
    friend class TaskManager;
    WL_DEVICE explicit Initialized(TaskManager& tm) : tm_(&tm) {}
    TaskManager* tm_;
  };

  // `smem` is the kernel's dynamic shared memory (Manager::smem_bytes, aligned to
  // Manager::smem_alignment); `rs` are the resource objects, each exactly once, in any order.
  template <class... Rs>
  WL_DEVICE explicit TaskManager(void* smem, Rs&... rs)
      : smem_(static_cast<char*>(smem)), ptrs_(make_ptrs(resources{}, rs...)) {}

  // Binds every resource's shared-memory buffers and initialises the pipeline barriers.
  WL_DEVICE Initialized setup_resources_and_tasks() {
    if constexpr (kOptions.compile_time_checks && kOptions.verified_in == VerifiedIn::KernelUnit) {
#if defined(WARPLOOM_TS_VERIFIED_IN_SCHEDULE_UNITS)
      static_assert(kOptions.verified_in != VerifiedIn::KernelUnit,
                    "TaskManager: this translation unit defines "
                    "WARPLOOM_TS_VERIFIED_IN_SCHEDULE_UNITS (no verifier), but this manager is "
                    "verified in its kernel unit: give it ManagerOptions{.verified_in = "
                    "VerifiedIn::ScheduleUnit} and a schedule unit, or drop the define");
#else
      static_assert(verified_at_compile_time<traits>(),
                    "TaskManager: a structural check failed; the note names the rule "
                    "(run `warploom verify` for the task, resource and fix)");
#endif
    }
    bind_all(resources{});
    if constexpr (kHasBarriers) {
      if (threadIdx.x == 0) init_barriers(resources{});
    }
    return Initialized(*this);
  }

 private:
  template <class R>
  WL_DEVICE R& get() {
    return *cuda::std::get<index_of_v<R, resources>>(ptrs_);
  }

  template <class R, class... Args>
  static WL_DEVICE R* pick(Args&... args) {
    static_assert(((std::is_same_v<R, Args> ? 1 : 0) + ... + 0) == 1,
                  "TaskManager: pass every resource object the tasks use exactly once (a resource "
                  "type named in this note is missing or repeated)");
    R* p = nullptr;
    (
        [&] {
          if constexpr (std::is_same_v<R, Args>) p = &args;
        }(),
        ...);
    return p;
  }

  template <class... Rs, class... Args>
  static WL_DEVICE cuda::std::tuple<Rs*...> make_ptrs(list<Rs...>, Args&... args) {
    return cuda::std::tuple<Rs*...>(pick<Rs>(args...)...);
  }

  template <class R, auto kMember>
  static constexpr long long buffer_offset() {
    return smem_layout().find(traits::template resource_index<R>, member_name<kMember>())->offset;
  }
  template <class R>
  static constexpr BarrierArrays barrier_arrays() {
    return smem_layout().barrier_arrays[traits::template resource_index<R>];
  }

  template <class R, auto... kMembers>
  WL_DEVICE void bind_buffers(buffers<kMembers...>) {
    R& r = get<R>();
    (
        [&] {
          using Buffer = detail::buffer_type_t<R, kMembers>;
          constexpr long long offset = buffer_offset<R, kMembers>();
          r.*kMembers = Buffer{reinterpret_cast<typename Buffer::value_type*>(smem_ + offset)};
        }(),
        ...);
  }

  template <class... Rs>
  WL_DEVICE void bind_all(list<Rs...>) {
    (
        [&] {
          if constexpr (requires { typename Rs::smem_buffers; })
            bind_buffers<Rs>(typename Rs::smem_buffers{});
        }(),
        ...);
  }

  // A ts::Fork's secondary member (any but the first of its group): its acquire waits on its own
  // empty barrier but does not arm the shared full one, which the group's one fill completes.
  template <class R>
  static constexpr bool kForkSecondary = []<class... Rs>(list<Rs...>) {
    return (... || [] {
      if constexpr (Rs::spec.kind == ResourceKind::Group && Rs::spec.group == GroupMode::Fork)
        return contains_v<R, typename Rs::members> && index_of_v<R, typename Rs::members> != 0;
      return false;
    }());
  }(resources{});

  template <class R>
  using pipeline_t = DevicePipeline<R::spec.pipeline, !kForkSecondary<R>>;

  // R's barriers, a group's shared array in place of its member's own on that side.
  template <class R>
  WL_DEVICE pipeline_t<R> pipeline() const {
    if constexpr (has_pipeline_v<R>) {
      constexpr BarrierArrays arrays = barrier_arrays<R>();
      auto at = [&](long long offset) {
        return offset < 0 ? nullptr : reinterpret_cast<sm90::Mbarrier*>(smem_ + offset);
      };
      return {at(arrays.full), at(arrays.empty)};
    } else {
      return {};
    }
  }

  // Every array once: a shared array by its group, a member's own side by the member.
  template <class... Rs>
  WL_DEVICE void init_barriers(list<Rs...>) const {
    (
        [&] {
          if constexpr (has_pipeline_v<Rs>) {
            constexpr BarrierArrays arrays = barrier_arrays<Rs>();
            if constexpr (arrays.owns_full) pipeline<Rs>().init_full();
            if constexpr (arrays.owns_empty) pipeline<Rs>().init_empty();
          }
        }(),
        ...);
  }

  static_assert(named_barriers_used(tasks{}) <= kNamedBarriers,
                "TaskManager: each task of several warps gets a named barrier of its own "
                "(task_barrier.hpp), and a CTA has 16, one of them __syncthreads'");
  static constexpr bool kHasBarriers = smem_layout().barrier_bytes > 0;
  static constexpr detail::RegisterRegions kRegions = detail::register_regions(tasks{}, num_warps);

  // Warp tests compare the warp index against constants, and only where they can fail: every warp
  // index is below num_warps (the block has num_threads threads: ts::launch launches it so, and
  // the kernel's __launch_bounds__(Manager::num_threads, 1) refuses more), so a region that spans
  // the block and a task that spans its region need none. A manager whose one task runs on every
  // warp (tutorial 01) then reads no warp index at all: its kernel starts with the schedule.
  template <int kLo, int kHi>
  static constexpr bool spans_block = kLo <= 0 && kHi >= num_warps;
  static constexpr bool kTestsWarps = [] {
    if constexpr (kRegions.count == 1 &&
                  spans_block<kRegions.regions[0].lo, kRegions.regions[0].hi>)
      return []<class... Ts>(list<Ts...>) {
        return (!(Ts::spec.warp_idx <= 0 && Ts::spec.warp_idx + Ts::spec.num_warps >= num_warps) &&
                ...);
      }(tasks{});
    return true;
  }();

  WL_DEVICE void run_tasks() {
    int const warp = kTestsWarps ? sm90::warp_idx_uniform() : 0;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      (run_region<I>(warp) || ...);
    }
    (std::make_index_sequence<kRegions.count>{});
  }

  template <std::size_t I>
  WL_DEVICE bool run_region([[maybe_unused]] int warp) {
    constexpr detail::RegisterRegion region = kRegions.regions[I];
    if constexpr (!spans_block<region.lo, region.hi>) {
      if (warp < region.lo || warp >= region.hi) return false;
    }
    if constexpr (region.budget != 0) sm90::set_max_registers<region.budget, kEntryRegisters>();
    [&]<class... Ts>(list<Ts...>) {
      (run_task_in<Ts, region.lo, region.hi>(warp) || ...);
    }(tasks{});
    return true;
  }

  // Inside region [kLo, kHi): a task covering all of it (up to the block's last warp) is the
  // region's only task, and runs untested.
  template <class T, int kLo, int kHi>
  WL_DEVICE bool run_task_in([[maybe_unused]] int warp) {
    constexpr int lo = T::spec.warp_idx, hi = T::spec.warp_idx + T::spec.num_warps;
    if constexpr (lo < kLo || hi > kHi) {
      return false;
    } else {
      if constexpr (!(lo <= kLo && hi >= std::min(kHi, num_warps))) {
        if (warp < lo || warp >= hi) return false;
      }
      run_task<T>(typename T::src{}, typename T::dst{},
                  unique_t<concat_t<typename T::src, typename T::dst>>{});
      return true;
    }
  }

  // The handles task T gets: one per resource, in two tuples that refer one way only. A pipeline
  // group's handle points at its members' cursors (device/group_handle.hpp); if it sat in the
  // members' tuple, that tuple would hold its own address and the compiler could no longer keep
  // the handles in registers (it spills them to the stack). Each tuple holds an empty placeholder
  // where the other holds a handle, so one index serves both.
  struct NoHandle {
    WL_DEVICE void producer_tail() const {}
  };
  template <class R>
  static constexpr bool kIsGroup = R::spec.kind == ResourceKind::Group;
  template <class T, class R>
  using resource_handle_t =
      std::conditional_t<kIsGroup<R>, NoHandle, DeviceHandle<R, access_v<T, R>, pipeline_t<R>>>;
  template <class T, class R>
  using group_handle_t =
      std::conditional_t<kIsGroup<R>, DeviceGroupHandle<R, access_v<T, R>>, NoHandle>;

  template <class T, class R>
  WL_DEVICE resource_handle_t<T, R> make_resource_handle(DeviceContext& ctx) {
    if constexpr (kIsGroup<R>) {
      return {};
    } else {
      return resource_handle_t<T, R>(get<R>(), ctx, pipeline<R>());
    }
  }

  // A group's handle, pointing at its members' cursors in `handles`.
  template <class T, class R, class U, class Handles>
  WL_DEVICE group_handle_t<T, R> make_group_handle(Handles& handles) {
    if constexpr (kIsGroup<R>) {
      using Group = group_handle_t<T, R>;
      Group group(pipeline<R>());
      [&]<class... Ms>(list<Ms...>) {
        static_assert((contains_v<Ms, U> && ...),
                      "R-C2: a task that uses a pipeline group lists every member of it too (the "
                      "group op moves every member's cursor)");
        group.link(cuda::std::get<index_of_v<Ms, U>>(handles)
                       .template group_op_cursor<Group::kGroupOp>()...);
      }(typename R::members{});
      return group;
    } else {
      return {};
    }
  }

  template <class R, class U, class Handles, class Groups>
  static WL_DEVICE auto& handle_of(Handles& handles, Groups& groups) {
    if constexpr (kIsGroup<R>) {
      return cuda::std::get<index_of_v<R, U>>(groups);
    } else {
      return cuda::std::get<index_of_v<R, U>>(handles);
    }
  }

  // Bit w: warp w of task T, whose warps take roles (TaskSpec::warp_roles), fills resource R, so
  // it drains R at its end (ts::fills, as the verifier's model does). Read from the warps'
  // captures while the kernel compiles.
  template <class T, class R>
  static constexpr std::uint32_t kRoleFills = [] {
    std::uint32_t bits = 0;
    for (int w = 0; w < T::spec.num_warps; ++w) {
      Schedule const s = detail::capture_at<traits, T>(detail::role_coords(T::spec, w), nullptr,
                                                       typename T::src{}, typename T::dst{});
      if (fills(s, traits::template resource_index<R>)) bits |= 1u << w;
    }
    return bits;
  }();

  template <class T, class... Src, class... Dst, class... Us>
  WL_DEVICE void run_task(list<Src...>, list<Dst...>, list<Us...>) {
    // A task whose warps take roles runs as one-warp tasks: each warp is its task's first warp.
    constexpr bool kRoles = T::spec.warp_roles;
    int const first_warp = kRoles ? sm90::warp_idx_uniform() : T::spec.warp_idx;
    DeviceContext ctx(
        ResourceContext{.smem_base = smem_,
                        .task_barrier = task_barrier<T>(tasks{}),
                        .task_threads = (kRoles ? 1 : T::spec.num_warps) * sm90::kThreadsPerWarp},
        first_warp);
    using U = list<Us...>;
    cuda::std::tuple<resource_handle_t<T, Us>...> handles(make_resource_handle<T, Us>(ctx)...);
    cuda::std::tuple<group_handle_t<T, Us>...> groups(make_group_handle<T, Us, U>(handles)...);
    T::schedule(ctx, handle_of<Src, U>(handles, groups)..., handle_of<Dst, U>(handles, groups)...);
    if constexpr (kRoles) {
      auto const role = static_cast<unsigned>(first_warp - T::spec.warp_idx);
      ((kRoleFills<T, Us> >> role & 1u ? cuda::std::get<index_of_v<Us, U>>(handles).producer_tail()
                                       : void()),
       ...);
    } else {
      (cuda::std::get<index_of_v<Us, U>>(handles).producer_tail(), ...);
    }
  }

  char* smem_;
  typename detail::pointer_tuple<resources>::type ptrs_;
#endif  // __CUDACC__
};

}  // namespace warploom::ts
