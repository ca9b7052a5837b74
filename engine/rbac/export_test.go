package rbac

// BurstGap is burstGap, for the pacing tests.
const BurstGap = burstGap
