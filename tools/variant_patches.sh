# tools/variant_patches.sh — sourced by tools/*_variants.sh: a variant is `base` (the tree itself)
# or patches over the tree joined by '+' (a.patch+b.patch), applied before it is built and timed
# and reverted after.
#   variant_apply <variant>   sets $name (for file names: a__b), $patches and $ok (0: a patch failed),
#                             applies the patches, logs to $LOG and names the results' commit
#   variant_revert            reverts them, last first
variant_apply() {
  patches=()
  [[ $1 == base ]] || IFS=+ read -r -a patches <<<"$1"
  # Each patch's own name, joined by "__" (the device brings back only names of letters, digits,
  # '.', '_' and '-'): a.patch+b.patch is a__b, never b's alone, whose results it would overwrite.
  name=base
  local p names=()
  for p in "${patches[@]+"${patches[@]}"}"; do names+=("$(basename "$p" .patch)"); done
  ((${#names[@]})) && name=$(printf '%s__' "${names[@]}") && name=${name%__}
  echo "==== $name" | tee -a "$LOG"
  ok=1
  for p in "${patches[@]+"${patches[@]}"}"; do patch -p1 --forward <"$p" >>"$LOG" 2>&1 || ok=0; done
  export WARPLOOM_COMMIT="${base_commit}+$name"  # the results name the variant they timed
}
variant_revert() {
  for ((i = ${#patches[@]} - 1; i >= 0; i--)); do patch -p1 -R <"${patches[i]}" >>"$LOG" 2>&1; done
}
