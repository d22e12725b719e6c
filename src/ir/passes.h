// Optimisation passes over one block.  Each keeps instruction indices
// stable: removed instructions are marked dead, replaced values are
// rewritten in their users.
#pragma once

#include "ir/ir.h"

namespace phybin::ir {

// GetReg/GetFlag/GetXmm after a SetReg/SetFlag/SetXmm of the same register
// or flag in the block read the written value instead (calls into C++ are
// barriers).
void forward_state(Block& block);

// Removes SetFlag whose flag is written again, or not live at the exit,
// before anything reads it.  Before a guest instruction that may fault (a
// load or store), the flags the guest code may read from there on count
// as read: a handler that returns runs that instruction again.
void eliminate_dead_flags(Block& block);

// Removes SetReg (and SetXmm) whose register is written again before anything reads it
// and before any instruction that may fault (a load or store: the guest's
// signal handler sees the registers at the fault, so they must be exact).
void eliminate_dead_register_writes(Block& block);

// (x + c1) + c2 -> x + (c1 + c2) for 64-bit adds and subtracts.
void reassociate_offsets(Block& block);

// Removes a VCheckAlign whose address has the same base value and the same
// constant offset modulo 16 as an earlier check's: it cannot fault.  A
// check of base + a multiple of 16 checks the base instead.
void eliminate_redundant_align_checks(Block& block);

// Folds integer operations on constants.
void fold_constants(Block& block);

// Removes pure instructions whose values nobody uses.
void eliminate_dead_code(Block& block);

// The standard pipeline, in order.
void optimize(Block& block);

}  // namespace phybin::ir
