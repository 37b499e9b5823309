#!/usr/bin/env bash
# Regenerates examples/generated/ and the drivers of the hand-written examples
# (deterministic: rerunning must leave `git status` clean; test/Examples checks
# the generated steps against fresh generator output).
set -euo pipefail
cd "$(dirname "$0")/.."
gen="python3 gen/gen_training_step.py"

for m in mlp cnn residual; do
  $gen driver $m.mlir > $m.run.mlir
done

instance() {
  local name=$1; shift
  $gen "$@" --name ${name}_step > generated/$name.mlir
  (cd generated && python3 ../gen/gen_training_step.py driver $name.mlir > $name.run.mlir)
}
instance resnet4      resnet --blocks 4 --batch 8 --width 32 --hidden 64 --classes 10
instance resnet8      resnet --blocks 8 --batch 8 --width 32 --hidden 64 --classes 10
instance unet3        unet --widths 64,48,32,16 --batch 8
instance transformer2 transformer --blocks 2 --seq 8 --width 32 --hidden 64 --classes 10
instance transformer2ln transformer --blocks 2 --seq 8 --width 32 --hidden 64 --classes 10 --layernorm
# Activation-dominated instances (activations outweigh parameters several times,
# the regime where rematerialization pays off).
instance resnet8_b64      resnet --blocks 8 --batch 64 --width 32 --hidden 128 --classes 10
instance unet4_b64        unet --widths 64,48,32,24,16 --batch 64
instance transformer3_s64 transformer --blocks 3 --seq 64 --width 32 --hidden 64 --classes 10 --layernorm
# Convolutional ResNet-like (3x3 same-padding conv blocks, NHWC).
instance convresnet4 resnet --conv --blocks 4 --batch 4 --image 8 --width 8 --classes 10
