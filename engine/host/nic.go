package host

// Utilisation is the share of the link speed used, 0-1, by the busier
// direction (links are full duplex), or -1 when the speed is unknown.
func (n NIC) Utilisation() float64 {
	if n.SpeedMbps <= 0 {
		return -1
	}
	bps := max(n.RxBytesPerSec, n.TxBytesPerSec) * 8
	return clamp(bps/(float64(n.SpeedMbps)*1e6), 0, 1)
}
