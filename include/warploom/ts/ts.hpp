// warploom/ts/ts.hpp
//
// warploom::ts — task scheduling for warp-specialized kernels. One include for kernel authors.
#pragma once

#include "warploom/ts/async_wait.hpp"
#include "warploom/ts/dependency_graph.hpp"
#include "warploom/ts/domain_loop.hpp"
#include "warploom/ts/pdl.hpp"
#include "warploom/ts/pipeline_config.hpp"
#include "warploom/ts/pipeline_group.hpp"
#include "warploom/ts/resource.hpp"
#include "warploom/ts/size_probe.hpp"
#include "warploom/ts/smem_buffer.hpp"
#include "warploom/ts/stage_info.hpp"
#include "warploom/ts/task.hpp"
#include "warploom/ts/task_manager.hpp"
#include "warploom/ts/work.hpp"
#include "warploom/ts/work_queue.hpp"
#include "warploom/ts/work_tile_loop.hpp"
