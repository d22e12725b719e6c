// The functions a file's unwind table (.eh_frame) describes: one FDE per
// function, kept by stripped files too, with its exact extent.  Code
// outside every FDE and symbol is where hand-written assembly keeps data.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "scan/image.h"

namespace phybin::scan {

// The FDEs' [begin, end) of the .eh_frame at link address `address`;
// records that do not parse end the walk (what came before is kept).
std::vector<Extent> unwind_extents(const uint8_t* data, size_t size, uint64_t address);

// .eh_frame's link address from a .eh_frame_hdr at `address`; 0 if unknown.
uint64_t eh_frame_address_from_header(const uint8_t* data, size_t size, uint64_t address);

}  // namespace phybin::scan
