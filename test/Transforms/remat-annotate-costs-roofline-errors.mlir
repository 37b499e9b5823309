// RUN: remat-opt %s --split-input-file --remat-annotate-costs="device=h100" --verify-diagnostics

// A device the table (include/remat/Analysis/Devices.h) does not know is
// refused by the option parser, for the pass and for the pipeline; --help
// lists the known ones.
// RUN: not remat-opt %s --remat-annotate-costs="device=b200" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not remat-opt %s --remat-pipeline="device=b200" 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: Cannot find option named 'b200'!
// RUN: remat-opt --help | FileCheck %s --check-prefix=HELP
// HELP:      --device=<value>
// HELP-NEXT:   =none
// HELP-NEXT:   =a100
// HELP-NEXT:   =h100
// HELP-NEXT:   =h200

// The roofline sizes every tensor the op reads: a dynamic operand without a
// size hint is an error at the op, even when its FLOPs were written by hand.
func.func @dynamic_operand(%x: tensor<?xf32>) -> tensor<?xf32> {
  // expected-error @below {{'math.exp' op has operand #0 of type 'tensor<?xf32>' whose size the roofline cost cannot know}}
  %0 = math.exp %x {remat.cost = #remat.cost<bytes = [16], flops = 4>} : tensor<?xf32>
  return %0 : tensor<?xf32>
}

